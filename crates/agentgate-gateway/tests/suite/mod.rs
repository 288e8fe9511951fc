//! One module per subject; `support` holds the clients, the servers and
//! the waits they share.

mod egress;
mod failures;
mod forwarding;
mod keys;
mod limits;
mod proxies;
mod recording;
mod streaming;
mod support;
mod tls;
mod unix_socket;
