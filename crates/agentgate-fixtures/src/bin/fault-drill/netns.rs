//! The partition drill's hosts: one network namespace per worker, each
//! joined by a veth pair to a bridge in the drill's own namespace, where
//! its PostgreSQL listens on the bridge's address (iproute2's `ip`; needs
//! root).
//!
//! Every name carries the drill's pid in hex (`agd<pid>`: bridge `…b`,
//! namespace `…w<n>`, veth `…h<n>` on the bridge's side and `…n<n>` in
//! the namespace), so drills at once never collide, and what a drill left
//! (killed before its cleanup) is found by that prefix and removed by the
//! next drill once its pid is gone ([`remove_leftovers`]). [`Network`]
//! removes its own on drop, whatever the drill's end. The subnet is
//! `10.A.B.0/24`, the first of a few candidates from the pid that no
//! interface of this host uses.
//!
//! A cut is the bridge-side veth of a worker set down: its packets go
//! nowhere, nothing answers or resets its connections, as with a pulled
//! cable; a heal sets it up again.

use std::process::{Command, Stdio};

/// The names' common prefix.
const PREFIX: &str = "agd";

/// One worker's host.
#[derive(Debug, Clone)]
pub struct Host {
    /// Its network namespace.
    pub ns: String,
    /// Its veth's end on the bridge (what a cut sets down).
    pub veth: String,
    /// Its address.
    pub ip: String,
}

/// The bridge and the hosts; removed on drop.
#[derive(Debug)]
pub struct Network {
    bridge: String,
    /// The bridge's address: where PostgreSQL listens.
    pub bridge_ip: String,
    pub hosts: Vec<Host>,
    /// The `ip` binary.
    ip: String,
}

impl Network {
    /// The bridge and `hosts` namespaces (leftovers of dead drills removed
    /// first).
    pub fn create(hosts: usize) -> Result<Network, String> {
        let ip = find_ip()?;
        remove_leftovers(&ip);
        let tag = format!("{PREFIX}{:06x}", std::process::id());
        let subnet = free_subnet(&ip)?;
        let mut network = Network {
            bridge: format!("{tag}b"),
            bridge_ip: format!("{subnet}.1"),
            hosts: Vec::new(),
            ip,
        };
        network.run(&["link", "add", &network.bridge, "type", "bridge"])?;
        network.run(&[
            "addr",
            "add",
            &format!("{}/24", network.bridge_ip),
            "dev",
            &network.bridge,
        ])?;
        network.run(&["link", "set", &network.bridge, "up"])?;
        for n in 0..hosts {
            let host = Host {
                ns: format!("{tag}w{n}"),
                veth: format!("{tag}h{n}"),
                ip: format!("{subnet}.{}", 10 + n),
            };
            let inner = format!("{tag}n{n}");
            network.run(&["netns", "add", &host.ns])?;
            network.hosts.push(host.clone());
            network.run(&[
                "link", "add", &host.veth, "type", "veth", "peer", "name", &inner, "netns",
                &host.ns,
            ])?;
            network.run(&["link", "set", &host.veth, "master", &network.bridge])?;
            network.run(&["link", "set", &host.veth, "up"])?;
            let cidr = format!("{}/24", host.ip);
            network.run(&["-n", &host.ns, "addr", "add", &cidr, "dev", &inner])?;
            network.run(&["-n", &host.ns, "link", "set", &inner, "up"])?;
            network.run(&["-n", &host.ns, "link", "set", "lo", "up"])?;
        }
        Ok(network)
    }

    /// `ip ARGS`, failing with its stderr.
    fn run(&self, args: &[&str]) -> Result<(), String> {
        run_ip(&self.ip, args)
    }

    /// The command that runs `program` on host `n`.
    pub fn command_on(&self, n: usize, program: &std::path::Path) -> Result<Command, String> {
        let host = self
            .hosts
            .get(n)
            .ok_or_else(|| format!("no host {n} in the drill's network"))?;
        let mut cmd = Command::new(&self.ip);
        cmd.args(["netns", "exec", &host.ns]).arg(program);
        Ok(cmd)
    }

    /// Cut host `n` off: its veth's bridge end down.
    pub fn cut(&self, n: usize) -> Result<(), String> {
        self.set_link(n, "down")
    }

    /// Heal host `n`.
    pub fn heal(&self, n: usize) -> Result<(), String> {
        self.set_link(n, "up")
    }

    fn set_link(&self, n: usize, how: &str) -> Result<(), String> {
        let host = self
            .hosts
            .get(n)
            .ok_or_else(|| format!("no host {n} in the drill's network"))?;
        self.run(&["link", "set", &host.veth, how])
    }
}

impl Drop for Network {
    fn drop(&mut self) {
        for host in &self.hosts {
            let _ = run_ip(&self.ip, &["link", "del", &host.veth]);
            let _ = run_ip(&self.ip, &["netns", "del", &host.ns]);
        }
        let _ = run_ip(&self.ip, &["link", "del", &self.bridge]);
    }
}

fn find_ip() -> Result<String, String> {
    ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"]
        .into_iter()
        .find(|p| std::path::Path::new(p).is_file())
        .map(str::to_owned)
        .ok_or_else(|| "no `ip` (install Debian's iproute2)".to_owned())
}

fn run_ip(ip: &str, args: &[&str]) -> Result<(), String> {
    let out = Command::new(ip)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("ip {}: {e}", args.join(" ")))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "ip {}: {} (the partition drill needs root)",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

fn ip_output(ip: &str, args: &[&str]) -> String {
    Command::new(ip)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default()
}

/// `10.A.B`: the first candidate from the pid that no address of this
/// host is in.
fn free_subnet(ip: &str) -> Result<String, String> {
    let used = ip_output(ip, &["-4", "-o", "addr", "show"]);
    let pid = std::process::id();
    (0..32u32)
        .map(|i| {
            let n = pid.wrapping_add(i * 7919);
            format!("10.{}.{}", 150 + (n >> 8) % 100, n & 0xff)
        })
        .find(|subnet| !used.contains(&format!(" {subnet}.")))
        .ok_or_else(|| "no free 10.x.y.0/24 subnet for the drill's bridge".to_owned())
}

/// Remove the namespaces and links of drills whose process is gone.
fn remove_leftovers(ip: &str) {
    let dead = |name: &str| -> bool {
        let Some(hex) = name.strip_prefix(PREFIX).and_then(|r| r.get(..6)) else {
            return false;
        };
        u32::from_str_radix(hex, 16)
            .is_ok_and(|pid| !std::path::Path::new(&format!("/proc/{pid}")).exists())
    };
    for line in ip_output(ip, &["netns", "list"]).lines() {
        let name = line.split_whitespace().next().unwrap_or_default();
        if dead(name) {
            let _ = run_ip(ip, &["netns", "del", name]);
        }
    }
    for line in ip_output(ip, &["-o", "link", "show"]).lines() {
        // `N: NAME@PEER: <...`
        let name = line
            .split(": ")
            .nth(1)
            .unwrap_or_default()
            .split('@')
            .next()
            .unwrap_or_default();
        if dead(name) {
            let _ = run_ip(ip, &["link", "del", name]);
        }
    }
}
