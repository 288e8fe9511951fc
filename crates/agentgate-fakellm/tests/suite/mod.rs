mod replay;
mod require_key;
mod scripted_headers;
mod server;
mod stream_faults;
mod tls;
