//! `agentgate fake-llm` as a command.
