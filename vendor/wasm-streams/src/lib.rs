//! A stub of [wasm-streams](https://github.com/MattiasBuelens/wasm-streams)
//! 0.5 with only the API `server_fn` names, so the real crate's exported
//! `#[wasm_bindgen]` classes stay out of the bundle. This app has no server
//! functions: the conversions between Rust and JavaScript streams panic. See
//! README.md.
//!
//! The names and signatures follow wasm-streams 0.5.0 (MIT OR Apache-2.0, by
//! Mattias Buelens).

pub use readable::ReadableStream;

pub mod readable {
    //! Readable streams: only wrapping and unwrapping a raw stream work.

    use core::pin::Pin;
    use core::task::{Context, Poll};
    use futures_core::Stream;
    use wasm_bindgen::JsValue;

    pub mod sys {
        //! The raw JavaScript type.
        pub use web_sys::ReadableStream;
    }

    const NO_STREAMS: &str =
        "wasm-streams is stubbed out (vendor/wasm-streams): this app has no streaming server functions";

    /// A [`ReadableStream`](https://developer.mozilla.org/en-US/docs/Web/API/ReadableStream).
    #[derive(Debug)]
    pub struct ReadableStream {
        raw: sys::ReadableStream,
    }

    impl ReadableStream {
        /// Wraps a raw JavaScript stream.
        #[inline]
        pub fn from_raw(raw: sys::ReadableStream) -> Self {
            Self { raw }
        }

        /// Would make a JavaScript stream of a Rust [`Stream`]; the stub
        /// panics.
        pub fn from_stream<St>(_stream: St) -> Self
        where
            St: Stream<Item = Result<JsValue, JsValue>> + 'static,
        {
            unimplemented!("{NO_STREAMS}")
        }

        /// The raw JavaScript stream.
        #[inline]
        pub fn as_raw(&self) -> &sys::ReadableStream {
            &self.raw
        }

        /// Unwraps the raw JavaScript stream.
        #[inline]
        pub fn into_raw(self) -> sys::ReadableStream {
            self.raw
        }

        /// Would read the stream as a Rust [`Stream`]; the stub panics.
        pub fn into_stream(self) -> IntoStream<'static> {
            unimplemented!("{NO_STREAMS}")
        }
    }

    /// The [`Stream`] that [`ReadableStream::into_stream`] returns; the stub
    /// never makes one.
    #[must_use = "streams do nothing unless polled"]
    #[derive(Debug)]
    pub struct IntoStream<'reader> {
        _reader: core::marker::PhantomData<&'reader ()>,
    }

    impl Stream for IntoStream<'_> {
        type Item = Result<JsValue, JsValue>;

        fn poll_next(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
            unimplemented!("{NO_STREAMS}")
        }
    }
}
