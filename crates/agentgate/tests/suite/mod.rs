mod fake_llm_cli;
mod real_clis;
mod run_e2e;
mod run_process;
mod support;
