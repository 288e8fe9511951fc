//! Who sent an approval answer: a run's own processes, or someone else.
//!
//! An agent's CLI is not sandboxed yet: it can read the token file and
//! call the API like a person. So `POST /v1/runs/{id}/approvals/...` asks
//! which process holds the client end of the connection the answer came
//! on, and refuses it when that process belongs to a run seated at the
//! approval desk (its own run or another).
//!
//! How (Linux): the connection's peer address (axum's `ConnectInfo`) is
//! looked up in this process's network namespace's socket tables
//! (`/proc/self/net/tcp` and `tcp6`): an entry whose *local* address is the
//! peer's is the client's socket, on this host, and gives its inode. The
//! runs' processes are every process whose process group is a seated
//! CLI's (its keeper's group) and every descendant of those, from the
//! parent links in `/proc/*/stat`; each one's open files (`/proc/PID/fd`)
//! are searched for `socket:[INODE]`.
//!
//! What it catches: any process of the run that holds the socket when the
//! answer is handled (the CLI, a shell it started, `curl` in the
//! background, a process that left the group with `setsid`, a daemon that
//! double-forked: the keeper is a subreaper, so an orphan is re-parented
//! to it and stays a descendant), and a client socket on this host that
//! nobody holds any more (closed before its answer was handled: it cannot
//! be attributed, so it is refused).
//!
//! What it cannot catch: a process outside the run's tree that the agent
//! had something else start (`systemd-run --user`, `at`, cron, `ssh
//! localhost`, a process of another, non-`ask` run, a proxy listening
//! elsewhere), or one that received the socket from a run's process that
//! then closed its own copy. A client on another host (serve listening
//! beyond loopback) is never a run's process and is let through. On
//! systems without `/proc` (macOS) the check is not made.

use std::collections::{HashMap, HashSet};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// Where an answer came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// Not from a seated run's processes (or not checkable here).
    Outside,
    /// From process `pid`, one of run `run_id`'s.
    Run {
        /// The run.
        run_id: String,
        /// The process holding the client's socket.
        pid: i32,
    },
    /// From a socket of this host that no process holds any more.
    Unattributable,
}

/// Where the answer that came from `peer` came from, given the process
/// groups of the seated runs' CLIs (`(run_id, group)`).
pub fn origin(peer: SocketAddr, groups: &[(String, u32)]) -> Origin {
    #[cfg(target_os = "linux")]
    {
        linux::origin(peer, groups)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (peer, groups);
        Origin::Outside
    }
}

#[cfg(target_os = "linux")]
mod linux {
    use super::*;

    pub(super) fn origin(peer: SocketAddr, groups: &[(String, u32)]) -> Origin {
        let inodes = client_socket_inodes(peer);
        let Some(inodes) = inodes else {
            // No socket of this host has the peer's address: another host.
            return Origin::Outside;
        };
        let held: Vec<u64> = inodes.into_iter().filter(|i| *i != 0).collect();
        if held.is_empty() {
            return Origin::Unattributable;
        }
        if groups.is_empty() {
            return Origin::Outside;
        }
        let procs = processes();
        for (run_id, group) in groups {
            let Ok(group) = i32::try_from(*group) else {
                continue;
            };
            for pid in tree(&procs, group) {
                if holds_any(pid, &held) {
                    return Origin::Run {
                        run_id: run_id.clone(),
                        pid,
                    };
                }
            }
        }
        Origin::Outside
    }

    /// The inodes of this host's sockets whose local address is `peer`
    /// (0 for a socket no process holds); `None` when there is none.
    fn client_socket_inodes(peer: SocketAddr) -> Option<Vec<u64>> {
        let mut found = Vec::new();
        for table in ["/proc/self/net/tcp", "/proc/self/net/tcp6"] {
            let Ok(text) = std::fs::read_to_string(table) else {
                continue;
            };
            found.extend(
                text.lines()
                    .skip(1)
                    .filter_map(parse_line)
                    .filter(|(local, _)| same_endpoint(*local, peer))
                    .map(|(_, inode)| inode),
            );
        }
        (!found.is_empty()).then_some(found)
    }

    /// An IPv4 peer may show in `tcp6` as `::ffff:a.b.c.d`, and the other
    /// way round.
    fn same_endpoint(a: SocketAddr, b: SocketAddr) -> bool {
        a.port() == b.port() && a.ip().to_canonical() == b.ip().to_canonical()
    }

    /// `sl local_address rem_address st ... uid timeout inode ...`: the
    /// local address and the inode.
    pub(super) fn parse_line(line: &str) -> Option<(SocketAddr, u64)> {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let local = parse_endpoint(fields.get(1)?)?;
        let inode = fields.get(9)?.parse().ok()?;
        Some((local, inode))
    }

    /// `0100007F:1F90` (IPv4) or 32 hex digits and a port (IPv6): the
    /// address as the kernel prints it, 32-bit words in host byte order.
    pub(super) fn parse_endpoint(text: &str) -> Option<SocketAddr> {
        let (addr, port) = text.split_once(':')?;
        let port = u16::from_str_radix(port, 16).ok()?;
        let word = |i: usize| -> Option<[u8; 4]> {
            let hex = addr.get(i * 8..i * 8 + 8)?;
            Some(u32::from_str_radix(hex, 16).ok()?.to_ne_bytes())
        };
        let ip = match addr.len() {
            8 => IpAddr::V4(Ipv4Addr::from(word(0)?)),
            32 => {
                let mut bytes = [0u8; 16];
                for i in 0..4 {
                    bytes[i * 4..i * 4 + 4].copy_from_slice(&word(i)?);
                }
                IpAddr::V6(Ipv6Addr::from(bytes))
            }
            _ => return None,
        };
        Some(SocketAddr::new(ip, port))
    }

    /// Every process now: pid → (parent pid, process group).
    fn processes() -> HashMap<i32, (i32, i32)> {
        let mut out = HashMap::new();
        let Ok(dir) = std::fs::read_dir("/proc") else {
            return out;
        };
        for entry in dir.flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<i32>().ok())
            else {
                continue;
            };
            if let Some(links) = std::fs::read_to_string(entry.path().join("stat"))
                .ok()
                .as_deref()
                .and_then(parse_stat)
            {
                out.insert(pid, links);
            }
        }
        out
    }

    /// The parent pid and process group of a `/proc/PID/stat` line (after
    /// the command's closing parenthesis: state, ppid, pgrp).
    pub(super) fn parse_stat(stat: &str) -> Option<(i32, i32)> {
        let rest = &stat[stat.rfind(')')? + 1..];
        let mut fields = rest.split_whitespace();
        let _state = fields.next()?;
        let ppid = fields.next()?.parse().ok()?;
        let pgrp = fields.next()?.parse().ok()?;
        Some((ppid, pgrp))
    }

    /// The processes of group `group` and all their descendants.
    pub(super) fn tree(procs: &HashMap<i32, (i32, i32)>, group: i32) -> Vec<i32> {
        let mut inside: HashSet<i32> = procs
            .iter()
            .filter(|(_, (_, pgrp))| *pgrp == group)
            .map(|(pid, _)| *pid)
            .collect();
        // The leader's pid is the group's id, whatever group it moved to.
        if procs.contains_key(&group) {
            inside.insert(group);
        }
        loop {
            let more: Vec<i32> = procs
                .iter()
                .filter(|(pid, (ppid, _))| !inside.contains(pid) && inside.contains(ppid))
                .map(|(pid, _)| *pid)
                .collect();
            if more.is_empty() {
                break;
            }
            inside.extend(more);
        }
        let mut pids: Vec<i32> = inside.into_iter().collect();
        pids.sort_unstable();
        pids
    }

    /// Whether process `pid` has one of `inodes` open.
    fn holds_any(pid: i32, inodes: &[u64]) -> bool {
        let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
            return false;
        };
        fds.flatten().any(|fd| {
            std::fs::read_link(fd.path()).is_ok_and(|target| {
                target
                    .to_str()
                    .and_then(|t| t.strip_prefix("socket:["))
                    .and_then(|t| t.strip_suffix(']'))
                    .and_then(|t| t.parse::<u64>().ok())
                    .is_some_and(|inode| inodes.contains(&inode))
            })
        })
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::linux::{parse_endpoint, parse_line, parse_stat, tree};
    use super::*;

    #[test]
    fn the_kernels_addresses_are_read_in_host_byte_order() {
        let line = "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 123456 1 0000000000000000 100 0 0 10 0";
        assert_eq!(
            parse_line(line),
            Some(("127.0.0.1:8080".parse().unwrap(), 123_456))
        );
        assert_eq!(
            parse_endpoint("00000000000000000000000001000000:0050"),
            Some("[::1]:80".parse().unwrap())
        );
        assert_eq!(parse_endpoint("zz:0050"), None);
    }

    #[test]
    fn a_stat_line_gives_the_parent_and_the_group_whatever_the_command() {
        assert_eq!(
            parse_stat("42 (a (weird) name) S 7 40 40 0 -1"),
            Some((7, 40))
        );
        assert_eq!(parse_stat("garbage"), None);
    }

    #[test]
    fn the_tree_is_the_group_and_every_descendant() {
        // 10 leads group 10; 11 is its child; 12 left the group (setsid)
        // but is 11's child; 13 was re-parented to 10; 20 is elsewhere.
        let procs: HashMap<i32, (i32, i32)> = [
            (10, (1, 10)),
            (11, (10, 10)),
            (12, (11, 12)),
            (14, (12, 12)),
            (13, (10, 13)),
            (20, (1, 20)),
            (21, (20, 20)),
        ]
        .into_iter()
        .collect();
        assert_eq!(tree(&procs, 10), [10, 11, 12, 13, 14]);
    }

    #[test]
    fn a_socket_of_this_process_is_found_in_its_own_group() {
        use std::io::Write as _;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let mut client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (_server_side, peer) = listener.accept().unwrap();
        client.write_all(b"x").unwrap();
        let me = std::process::id();
        let group = u32::try_from(nix::unistd::getpgrp().as_raw()).unwrap();
        assert_eq!(
            origin(peer, &[("run_x".to_owned(), group)]),
            Origin::Run {
                run_id: "run_x".to_owned(),
                pid: i32::try_from(me).unwrap()
            }
        );
        assert_eq!(origin(peer, &[]), Origin::Outside, "no run is seated");
        let elsewhere: SocketAddr = "192.0.2.1:4000".parse().unwrap();
        assert_eq!(
            origin(elsewhere, &[("run_x".to_owned(), group)]),
            Origin::Outside,
            "not a socket of this host"
        );
    }
}
