//! The Landlock ruleset of a tool: its filesystem access and, where no
//! network namespace is used, its TCP ports.
//!
//! One ruleset, applied with `restrict_self` by the process that then
//! becomes the tool (Landlock domains are inherited across `exec` and
//! cannot be lifted). Best effort: the crate drops the rights the running
//! kernel does not know, and the report says which were dropped, from the
//! kernel's ABI version. The filesystem rights asked for are those of
//! [`FS_ABI`] (read, write, execute, make and remove files and folders,
//! rename across folders, truncate, device ioctls).
//!
//! Paths that do not exist are skipped (nothing can be opened there
//! anyway); a file (`/dev/null`) gets the rights that apply to files.
//! agentgate's own files are carved out of the paths first (`private.rs`);
//! the rules are the carved paths, so the `private_files` entry holds when
//! the filesystem's does.

use agentgate_protocol::{Enforcement, EnforcementState};
use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, LandlockStatus, NetPort, RestrictionStatus,
    Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetError, RulesetStatus, path_beneath_rules,
};

use super::SandboxSpec;
use super::private::{Carved, carve};
use super::report::{enforced, no_limit, not_enforced, partial};

/// The Landlock ABI whose filesystem rights the sandbox asks for (ABI 5,
/// Linux 6.10: up to `IOCTL_DEV`).
pub const FS_ABI: ABI = ABI::V5;

/// The first Landlock ABI with TCP rights (Linux 6.7).
const NET_ABI: i32 = 4;

/// What Landlock is asked to do with the network.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum NetByLandlock {
    /// Nothing (no limit, or a network namespace does it).
    Off,
    /// Refuse every TCP connect and bind (no network namespace could be
    /// made, for the reason given).
    DenyTcp { netns_error: String },
    /// TCP connect only to these ports.
    AllowPorts { ports: Vec<u16>, limit: String },
}

/// What the ruleset enforced: the filesystem's, the private files' and the
/// network's entries, `None` for what it was not asked to do; and what was
/// asked and not granted.
#[derive(Debug)]
pub(crate) struct Restricted {
    pub(crate) filesystem: Option<Enforcement>,
    pub(crate) network: Option<Enforcement>,
    pub(crate) private_files: Option<Enforcement>,
    pub(crate) warnings: Vec<String>,
}

/// Build the ruleset `spec` and `net` ask for and restrict this process.
pub(crate) fn restrict(spec: &SandboxSpec, net: &NetByLandlock) -> Restricted {
    let fs_limit = spec.restrict_filesystem.then(|| {
        format!(
            "read {} paths, write {} paths",
            spec.read_paths.len(),
            spec.write_paths.len() + spec.run_paths.len()
        )
    });
    let carved = spec.restrict_filesystem.then(|| {
        carve(
            &spec.read_paths,
            &spec.write_paths,
            &spec.run_paths,
            &spec.private_paths,
        )
    });
    let private = PrivateFiles::of(spec, carved.as_ref());
    let mut restricted = restrict_carved(carved.as_ref(), net, fs_limit);
    restricted.private_files = Some(PrivateFiles::entry(
        private.as_ref(),
        restricted.filesystem.as_ref(),
    ));
    restricted.warnings = carved.map(|c| c.refused).unwrap_or_default();
    restricted
}

fn restrict_carved(
    carved: Option<&Carved>,
    net: &NetByLandlock,
    fs_limit: Option<String>,
) -> Restricted {
    let net_limit = match net {
        NetByLandlock::Off => None,
        NetByLandlock::DenyTcp { .. } => Some("no network".to_owned()),
        NetByLandlock::AllowPorts { limit, .. } => Some(limit.clone()),
    };
    if fs_limit.is_none() && net_limit.is_none() {
        return Restricted {
            filesystem: None,
            network: None,
            private_files: None,
            warnings: Vec::new(),
        };
    }
    match apply(carved, net) {
        Err(e) => {
            let why = format!("Landlock failed: {e}");
            Restricted {
                filesystem: fs_limit.map(|l| not_enforced(l, why.clone())),
                network: net_limit.map(|l| not_enforced(l, why.clone())),
                private_files: None,
                warnings: Vec::new(),
            }
        }
        Ok(status) => judge(&status, fs_limit, net_limit, net),
    }
}

fn apply(carved: Option<&Carved>, net: &NetByLandlock) -> Result<RestrictionStatus, RulesetError> {
    let mut ruleset = Ruleset::default();
    if carved.is_some() {
        ruleset = ruleset.handle_access(AccessFs::from_all(FS_ABI))?;
    }
    match net {
        NetByLandlock::Off => {}
        NetByLandlock::DenyTcp { .. } => {
            ruleset = ruleset.handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)?;
        }
        NetByLandlock::AllowPorts { .. } => {
            ruleset = ruleset.handle_access(AccessNet::ConnectTcp)?;
        }
    }
    let mut created = ruleset.create()?;
    if let Some(carved) = carved {
        let writable = carved
            .write
            .iter()
            .map(|p| p.as_path())
            .chain([std::path::Path::new("/dev/null")]);
        created = created
            .add_rules(path_beneath_rules(
                &carved.read,
                AccessFs::from_read(FS_ABI),
            ))?
            .add_rules(path_beneath_rules(writable, AccessFs::from_all(FS_ABI)))?;
    }
    if let NetByLandlock::AllowPorts { ports, .. } = net {
        for port in ports {
            created = created.add_rule(NetPort::new(*port, AccessNet::ConnectTcp))?;
        }
    }
    created.restrict_self()
}

/// The report's entries from what `restrict_self` says of the kernel.
fn judge(
    status: &RestrictionStatus,
    fs_limit: Option<String>,
    net_limit: Option<String>,
    net: &NetByLandlock,
) -> Restricted {
    let (effective, abi) = match status.landlock {
        LandlockStatus::NotEnabled => {
            return all_not_enforced(
                fs_limit,
                net_limit,
                net,
                "Landlock is built into this kernel but not enabled (the lsm= boot parameter)",
            );
        }
        LandlockStatus::NotImplemented => {
            return all_not_enforced(
                fs_limit,
                net_limit,
                net,
                "this kernel has no Landlock (Linux 5.13 or later, CONFIG_SECURITY_LANDLOCK)",
            );
        }
        LandlockStatus::Available {
            effective_abi,
            kernel_abi,
        } => (effective_abi, kernel_abi.unwrap_or(effective_abi as i32)),
    };
    if status.ruleset == RulesetStatus::NotEnforced {
        return all_not_enforced(
            fs_limit,
            net_limit,
            net,
            &format!("Landlock ABI {abi} enforced none of the rules"),
        );
    }
    let by = format!("Landlock ABI {abi}");
    let filesystem = fs_limit.map(|limit| {
        let missing = AccessFs::from_all(FS_ABI) & !AccessFs::from_all(effective);
        if missing.is_empty() {
            enforced(limit, by.clone())
        } else {
            partial(
                limit,
                by.clone(),
                format!(
                    "this kernel's Landlock lacks the rights {} (ABI {} has them)",
                    names(missing),
                    FS_ABI as i32
                ),
            )
        }
    });
    let network = net_limit.map(|limit| match net {
        NetByLandlock::Off => enforced(limit, by.clone()),
        _ if abi < NET_ABI => not_enforced(limit, no_net_rights(net, abi)),
        NetByLandlock::DenyTcp { netns_error } => partial(
            limit,
            by.clone(),
            format!("{netns_error}; TCP connect and bind refused by Landlock, UDP not restricted"),
        ),
        NetByLandlock::AllowPorts { ports, .. } => partial(
            limit,
            by.clone(),
            format!(
                "ports enforced, hosts not: TCP connect allowed to ports {ports:?} on any host; UDP not restricted"
            ),
        ),
    });
    Restricted {
        filesystem,
        network,
        private_files: None,
        warnings: Vec::new(),
    }
}

fn all_not_enforced(
    fs_limit: Option<String>,
    net_limit: Option<String>,
    net: &NetByLandlock,
    why: &str,
) -> Restricted {
    Restricted {
        filesystem: fs_limit.map(|l| not_enforced(l, why)),
        network: net_limit.map(|l| match net {
            NetByLandlock::DenyTcp { netns_error } => {
                not_enforced(l, format!("{netns_error}; {why}"))
            }
            _ => not_enforced(l, why),
        }),
        private_files: None,
        warnings: Vec::new(),
    }
}

fn no_net_rights(net: &NetByLandlock, abi: i32) -> String {
    let landlock = format!("Landlock ABI {abi} has no network rights (ABI {NET_ABI}, Linux 6.7)");
    match net {
        NetByLandlock::DenyTcp { netns_error } => format!("{netns_error}; {landlock}"),
        _ => landlock,
    }
}

fn names(rights: BitFlags<AccessFs>) -> String {
    rights
        .iter()
        .map(|r| format!("{r:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The Landlock ABI of the running kernel, found by restricting this
/// process with a ruleset that allows everything (only `agentgate __sandbox
/// --probe` calls it, and then exits). `Err` says why there is none.
pub(crate) fn probe_abi() -> Result<i32, String> {
    let status = Ruleset::default()
        .handle_access(AccessFs::from_all(FS_ABI))
        .and_then(|r| r.create())
        .and_then(|c| c.add_rules(path_beneath_rules(["/"], AccessFs::from_all(FS_ABI))))
        .and_then(|c| c.restrict_self())
        .map_err(|e| format!("Landlock failed: {e}"))?;
    match status.landlock {
        LandlockStatus::NotEnabled => {
            Err("Landlock is built into this kernel but not enabled".to_owned())
        }
        LandlockStatus::NotImplemented => Err("this kernel has no Landlock".to_owned()),
        LandlockStatus::Available {
            effective_abi,
            kernel_abi,
        } => Ok(kernel_abi.unwrap_or(effective_abi as i32)),
    }
}

/// The `private_files` entry: what was asked, and how the carving went.
struct PrivateFiles {
    limit: String,
    /// Why it cannot hold, before Landlock is asked.
    unenforceable: Option<String>,
    opened: usize,
}

impl PrivateFiles {
    fn of(spec: &SandboxSpec, carved: Option<&Carved>) -> Option<PrivateFiles> {
        if spec.private_paths.is_empty() {
            return None;
        }
        let existing = carved.map_or(0, |c| c.private.len());
        Some(PrivateFiles {
            limit: format!(
                "agentgate's own files unreadable ({} paths, {existing} existing)",
                spec.private_paths.len()
            ),
            unenforceable: carved
                .is_none()
                .then(|| "the filesystem is not restricted".to_owned()),
            opened: carved.map_or(0, |c| c.opened),
        })
    }

    /// Held when Landlock held the filesystem (the rights it needs, read,
    /// are those of ABI 1), not otherwise.
    fn entry(asked: Option<&PrivateFiles>, filesystem: Option<&Enforcement>) -> Enforcement {
        let Some(asked) = asked else {
            return no_limit();
        };
        let limit = asked.limit.clone();
        if let Some(why) = &asked.unenforceable {
            return not_enforced(limit, why.clone());
        }
        match filesystem {
            Some(fs)
                if matches!(
                    fs.state,
                    EnforcementState::Enforced | EnforcementState::Partial
                ) =>
            {
                let by = fs.by.clone().unwrap_or_else(|| "Landlock".to_owned());
                enforced(
                    limit,
                    format!(
                        "{by} (not granted; {} folder(s) holding them granted entry by entry)",
                        asked.opened
                    ),
                )
            }
            Some(fs) => not_enforced(
                limit,
                fs.note
                    .clone()
                    .unwrap_or_else(|| "the filesystem restriction did not hold".to_owned()),
            ),
            None => not_enforced(limit, "the filesystem is not restricted"),
        }
    }
}
