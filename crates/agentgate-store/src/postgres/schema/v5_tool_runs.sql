-- Tool runs (`agentgate tool`): what a run ran, and the agent run that
-- called a tool through `agentgate mcp`.
ALTER TABLE runs ADD COLUMN kind text NOT NULL DEFAULT 'agent' CHECK (kind IN ('agent', 'tool'));
ALTER TABLE runs ADD COLUMN parent_run_id text;
CREATE INDEX runs_by_parent ON runs (parent_run_id) WHERE parent_run_id IS NOT NULL;
