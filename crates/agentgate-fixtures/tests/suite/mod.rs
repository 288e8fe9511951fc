mod forwarding;
mod supervise;
mod warm_process;
