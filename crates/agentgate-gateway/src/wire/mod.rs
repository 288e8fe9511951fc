//! What a model call means, read off the bytes. (Being written: see the
//! crate's architecture note for the contract.)
