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

/// Implement `crate::wire::Encode` for a struct or an enum: what serde's
/// `Serialize` would hand `sim_core::wire`'s writer, written directly (a
/// call per field, no `Result`). The names follow serde's: a container's
/// `rename_all` (`kebab-case`, `snake_case`, `lowercase`) renames a struct's
/// fields or an enum's variants, `rename` one of them; `skip` leaves a field
/// out, `skip_serializing_if` leaves it out when the test holds (marked in
/// the shape), `serialize_with = "…page_only"` marks a value only the page
/// reads, and `transparent` writes the one field alone.
#[proc_macro_derive(Encode, attributes(serde))]
pub fn derive_encode(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    match expand_encode(&input) {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// The serde attributes this derive reads.
#[derive(Default)]
struct Serde {
    skip: bool,
    skip_if: Option<syn::Path>,
    page_only: bool,
    rename: Option<String>,
    rename_all: Option<String>,
    transparent: bool,
    tagged: bool,
}

fn serde_attrs(attrs: &[Attribute]) -> syn::Result<Serde> {
    let mut out = Serde::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        attr.parse_nested_meta(|m| {
            let text = |m: &syn::meta::ParseNestedMeta| -> syn::Result<String> {
                let s: syn::LitStr = m.value()?.parse()?;
                Ok(s.value())
            };
            if m.path.is_ident("skip") || m.path.is_ident("skip_serializing") {
                out.skip = true;
            } else if m.path.is_ident("skip_serializing_if") {
                out.skip_if = Some(syn::parse_str(&text(&m)?)?);
            } else if m.path.is_ident("serialize_with") {
                let path = text(&m)?;
                if !path.ends_with("page_only") {
                    return Err(m.error("Encode knows only serialize_with = \"…page_only\""));
                }
                out.page_only = true;
            } else if m.path.is_ident("rename") {
                out.rename = Some(text(&m)?);
            } else if m.path.is_ident("rename_all") {
                out.rename_all = Some(text(&m)?);
            } else if m.path.is_ident("transparent") {
                out.transparent = true;
            } else if m.path.is_ident("tag") || m.path.is_ident("untagged") {
                out.tagged = true;
                if m.input.peek(syn::Token![=]) {
                    let _ = text(&m)?;
                }
            } else if m.input.peek(syn::Token![=]) {
                let _: syn::Expr = m.value()?.parse()?;
            }
            Ok(())
        })?;
    }
    Ok(out)
}

/// `name` under serde's `rename_all = rule` (`variant`: written in
/// PascalCase, else snake_case).
fn renamed(name: &str, rule: Option<&str>, variant: bool) -> syn::Result<String> {
    let snake = if variant {
        let mut s = String::new();
        for (i, c) in name.chars().enumerate() {
            if c.is_uppercase() && i > 0 {
                s.push('_');
            }
            s.extend(c.to_lowercase());
        }
        s
    } else {
        name.to_string()
    };
    Ok(match rule {
        None => name.to_string(),
        Some("kebab-case") => snake.replace('_', "-"),
        Some("snake_case") => snake,
        Some("lowercase") => name.to_lowercase(),
        Some(other) => {
            return Err(syn::Error::new(
                proc_macro2::Span::call_site(),
                format!("Encode does not know rename_all = \"{other}\""),
            ))
        }
    })
}

fn expand_encode(input: &DeriveInput) -> syn::Result<Tokens> {
    let name = &input.ident;
    let outer = serde_attrs(&input.attrs)?;
    if outer.tagged {
        return Err(syn::Error::new(
            name.span(),
            "Encode writes externally tagged enums only",
        ));
    }
    let mut generics = input.generics.clone();
    for p in generics.type_params_mut() {
        p.bounds.push(parse_quote!(crate::wire::Encode));
    }
    let (imp, ty, wh) = generics.split_for_impl();
    let rule = outer.rename_all.as_deref();
    let body = match &input.data {
        Data::Struct(s) if outer.transparent => {
            let f = s
                .fields
                .iter()
                .next()
                .ok_or_else(|| syn::Error::new(name.span(), "transparent needs a field"))?;
            let access = member(f, 0);
            quote!(crate::wire::Encode::encode(&self.#access, w);)
        }
        Data::Struct(s) => match &s.fields {
            Fields::Named(_) => {
                let binds = s
                    .fields
                    .iter()
                    .filter_map(|f| f.ident.as_ref())
                    .map(|ident| quote!(let #ident = &self.#ident;));
                let fields = struct_fields(&s.fields, rule)?;
                quote!(#(#binds)* #fields)
            }
            Fields::Unnamed(u) if u.unnamed.len() == 1 => {
                quote!(crate::wire::Encode::encode(&self.0, w);)
            }
            Fields::Unnamed(u) => {
                let n = u.unnamed.len();
                let idx = (0..n).map(syn::Index::from);
                quote!(w.tuple(#n); #(crate::wire::Encode::encode(&self.#idx, w);)*)
            }
            Fields::Unit => quote!(w.unit();),
        },
        Data::Enum(e) => {
            let arms = e
                .variants
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    let i = i as u32;
                    let attrs = serde_attrs(&v.attrs)?;
                    let vname = match attrs.rename {
                        Some(r) => r,
                        None => renamed(&v.ident.to_string(), rule, true)?,
                    };
                    let ident = &v.ident;
                    Ok(match &v.fields {
                        Fields::Unit => quote!(Self::#ident => w.tagged(crate::wire::tag::UNIT_VARIANT, #i, #vname),),
                        Fields::Unnamed(u) if u.unnamed.len() == 1 => quote!(Self::#ident(x) => {
                            w.tagged(crate::wire::tag::NEWTYPE_VARIANT, #i, #vname);
                            crate::wire::Encode::encode(x, w);
                        }),
                        Fields::Unnamed(u) => {
                            let n = u.unnamed.len();
                            let xs: Vec<syn::Ident> = (0..n).map(|k| quote::format_ident!("x{}", k)).collect();
                            quote!(Self::#ident(#(#xs),*) => {
                                w.tagged(crate::wire::tag::TUPLE_VARIANT, #i, #vname);
                                w.tuple_len(#n);
                                #(crate::wire::Encode::encode(#xs, w);)*
                            })
                        }
                        Fields::Named(_) => {
                            let idents: Vec<_> = v.fields.iter().filter_map(|f| f.ident.as_ref()).collect();
                            // Fields of a variant keep their names (serde's
                            // `rename_all` on an enum renames its variants).
                            let fields = struct_fields(&v.fields, None)?;
                            quote!(Self::#ident { #(#idents),* } => {
                                w.tagged(crate::wire::tag::STRUCT_VARIANT, #i, #vname);
                                #fields
                            })
                        }
                    })
                })
                .collect::<syn::Result<Vec<_>>>()?;
            quote!(match self { #(#arms)* })
        }
        Data::Union(u) => {
            return Err(syn::Error::new(
                u.union_token.span,
                "Encode is for structs and enums",
            ))
        }
    };
    let open = match &input.data {
        Data::Struct(s) if !outer.transparent && matches!(s.fields, Fields::Named(_)) => {
            quote!(w.tag(crate::wire::tag::STRUCT);)
        }
        _ => quote!(),
    };
    Ok(quote! {
        impl #imp crate::wire::Encode for #name #ty #wh {
            #[allow(unused_variables)]
            fn encode(&self, w: &mut crate::wire::Writer) {
                #open
                #body
            }
        }
    })
}

/// `self.field` or `self.0`.
fn member(f: &syn::Field, i: usize) -> Tokens {
    match &f.ident {
        Some(ident) => quote!(#ident),
        None => {
            let i = syn::Index::from(i);
            quote!(#i)
        }
    }
}

/// A struct's (or struct variant's) fields, each bound by its own name:
/// the field count first (as serde counts it), then name and value each.
fn struct_fields(fields: &Fields, rule: Option<&str>) -> syn::Result<Tokens> {
    let mut always = 0usize;
    let mut maybe = Vec::new();
    let mut writes = Vec::new();
    for f in fields {
        let a = serde_attrs(&f.attrs)?;
        if a.skip {
            continue;
        }
        let Some(ident) = f.ident.as_ref() else {
            continue;
        };
        let key = match a.rename {
            Some(r) => r,
            None => renamed(&ident.to_string(), rule, false)?,
        };
        let write = if a.page_only {
            quote!(w.field(#key); crate::wire::page_only_encode(#ident, w);)
        } else {
            quote!(w.field(#key); crate::wire::Encode::encode(#ident, w);)
        };
        match a.skip_if {
            Some(test) => {
                maybe.push(quote!(usize::from(!#test(#ident))));
                writes.push(quote!(if #test(#ident) { w.skip(#key); } else { #write }));
            }
            None => {
                always += 1;
                writes.push(write);
            }
        }
    }
    Ok(quote! {
        w.open(#always #(+ #maybe)*);
        #(#writes)*
        w.close();
    })
}
