//! Workspace snapshots: did an attempt change the files?
