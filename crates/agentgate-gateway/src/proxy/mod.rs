//! The endpoint and the forwarding. (Being written: see the crate's
//! architecture note for the contract.)
