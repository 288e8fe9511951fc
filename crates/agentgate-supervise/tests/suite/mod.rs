mod forwarding;
mod supervise;
