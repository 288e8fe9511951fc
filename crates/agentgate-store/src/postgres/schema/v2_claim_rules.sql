-- What a claim within rules charged a running job (see crate::ClaimRules):
-- the provider it counts against and the folder it may write in. The
-- claim counts running jobs through jobs_leases (state = 'running').
ALTER TABLE jobs ADD COLUMN charged_provider text;
ALTER TABLE jobs ADD COLUMN writes_in text;
