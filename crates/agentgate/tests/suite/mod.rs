mod fake_llm_cli;
mod real_clis;
mod support;
