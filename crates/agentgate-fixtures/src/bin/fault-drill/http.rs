//! One HTTP/1.1 request per connection to `serve` over 127.0.0.1: the
//! drill submits, cancels and reads through the real API, with the
//! fixtures' shared client.

pub use agentgate_fixtures::bench::{TOKEN, http as request};
