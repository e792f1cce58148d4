//! `#[derive(Decode)]`: read a type back from the values half of
//! `sim_core::wire`'s encoding (postcard's positional format), field by
//! field in declaration order.
//!
//! Why not serde's `Deserialize` with postcard's reader: serde's derive
//! goes through a visitor per type and a sequence accessor per field type,
//! and that code, compiled for every outcome type of every lab, was the
//! largest per-lab part of the page's bundle. What this derive writes per
//! type is a run of calls, one per field.
//!
//! It reads the serde attributes that change what the encoding holds: a
//! field with `#[serde(skip)]` is not in the encoding and is set to its
//! `Default`. Every other attribute (`rename_all`, `default`,
//! `serialize_with = "page_only"`, `skip_serializing_if` on an empty
//! value) only changes names or JSON, not the values' order, so it is
//! ignored. The generated code names `crate::wire`, so the derive is for
//! sim-core's own types.

use proc_macro::TokenStream;
use proc_macro2::TokenStream as Tokens;
use quote::quote;
use syn::{parse_macro_input, parse_quote, Attribute, Data, DeriveInput, Fields};

/// Implement `crate::wire::Decode` for a struct or an enum.
#[proc_macro_derive(Decode, attributes(serde))]
pub fn derive_decode(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    match expand(&input) {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

fn expand(input: &DeriveInput) -> syn::Result<Tokens> {
    let name = &input.ident;
    let mut generics = input.generics.clone();
    for p in generics.type_params_mut() {
        p.bounds.push(parse_quote!(crate::wire::Decode));
    }
    let (imp, ty, wh) = generics.split_for_impl();
    let body = match &input.data {
        Data::Struct(s) => construct(quote!(Self), &s.fields)?,
        Data::Enum(e) => {
            let built = e
                .variants
                .iter()
                .map(|v| {
                    let ident = &v.ident;
                    construct(quote!(Self::#ident), &v.fields)
                })
                .collect::<syn::Result<Vec<_>>>()?;
            let Some((first, rest)) = built.split_first() else {
                return Err(syn::Error::new(name.span(), "Decode needs a variant"));
            };
            let n = built.len() as u64;
            let numbers = 1..n;
            // A number out of range has marked the reader failed and
            // reads as 0: the first variant.
            quote! {
                match r.variant(#n) {
                    #(#numbers => #rest,)*
                    _ => #first,
                }
            }
        }
        Data::Union(u) => {
            return Err(syn::Error::new(
                u.union_token.span,
                "Decode is for structs and enums",
            ))
        }
    };
    Ok(quote! {
        impl #imp crate::wire::Decode for #name #ty #wh {
            fn decode(r: &mut crate::wire::Reader<'_>) -> Self {
                #body
            }
        }
    })
}

/// `path { field: read, .. }`, `path(read, ..)` or `path`.
fn construct(path: Tokens, fields: &Fields) -> syn::Result<Tokens> {
    let reads = fields
        .iter()
        .map(|f| {
            let ty = &f.ty;
            let read = if skipped(&f.attrs)? {
                quote!(::core::default::Default::default())
            } else {
                quote!(<#ty as crate::wire::Decode>::decode(r))
            };
            Ok(match &f.ident {
                Some(ident) => quote!(#ident: #read),
                None => read,
            })
        })
        .collect::<syn::Result<Vec<_>>>()?;
    Ok(match fields {
        Fields::Named(_) => quote!(#path { #(#reads),* }),
        Fields::Unnamed(_) => quote!(#path ( #(#reads),* )),
        Fields::Unit => path,
    })
}

/// Whether `#[serde(skip)]` (or `skip_serializing`) leaves the field out
/// of the encoding.
fn skipped(attrs: &[Attribute]) -> syn::Result<bool> {
    let mut skip = false;
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        attr.parse_nested_meta(|m| {
            if m.path.is_ident("skip") || m.path.is_ident("skip_serializing") {
                skip = true;
            } else if m.input.peek(syn::Token![=]) {
                // `key = "value"`: read past the value.
                let _: syn::Expr = m.value()?.parse()?;
            }
            Ok(())
        })?;
    }
    Ok(skip)
}
