mod warm_process;
