mod fake_llm_cli;
mod real_clis;
mod run_e2e;
mod run_e2e_opencode;
mod run_e2e_qwen;
mod run_process;
mod run_replay;
mod support;
