mod replay;
mod scripted_headers;
mod server;
mod stream_faults;
mod tls;
