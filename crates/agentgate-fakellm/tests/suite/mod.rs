mod server;
mod stream_faults;
