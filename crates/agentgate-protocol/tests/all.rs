//! The crate's one integration-test binary; the tests live in `suite/`.

mod suite;
