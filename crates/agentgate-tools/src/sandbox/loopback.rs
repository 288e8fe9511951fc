//! The loopback of a new network namespace brought up, so that
//! `127.0.0.1` answers there (a new namespace's loopback is down: nothing,
//! 127.0.0.1 included, can be reached until it is up).
//!
//! It is one rtnetlink request, what `ip link set lo up` sends: an
//! `RTM_NEWLINK` for interface index 1 (the kernel makes a namespace's
//! loopback first, so it is always index 1) with `IFF_UP` in the flags and
//! in the change mask, acknowledged by the kernel. The messages are built
//! and read by the rust-netlink project's crates (the workspace has no
//! `unsafe`, and the ioctl that does the same needs it). The caller must
//! hold `CAP_NET_ADMIN` over the namespace (pid 1 of the sandbox does, as
//! root of the user namespace that owns it).

use netlink_packet_core::{
    NLM_F_ACK, NLM_F_REQUEST, NetlinkHeader, NetlinkMessage, NetlinkPayload,
};
use netlink_packet_route::RouteNetlinkMessage;
use netlink_packet_route::link::{LinkFlags, LinkMessage};
use netlink_sys::protocols::NETLINK_ROUTE;
use netlink_sys::{Socket, SocketAddr};

/// The interface index of every network namespace's loopback.
const LOOPBACK_INDEX: u32 = 1;

/// The most replies read while waiting for the kernel's answer (it sends
/// one: the acknowledgement or the error).
const MAX_REPLIES: usize = 8;

/// Bring this network namespace's loopback up. The error says what failed.
pub(crate) fn bring_loopback_up() -> Result<(), String> {
    let fail = |what: &str, e: std::io::Error| format!("bringing the loopback up: {what}: {e}");
    let mut socket = Socket::new(NETLINK_ROUTE).map_err(|e| fail("no netlink socket", e))?;
    socket
        .bind_auto()
        .map_err(|e| fail("binding the netlink socket", e))?;
    socket
        .connect(&SocketAddr::new(0, 0))
        .map_err(|e| fail("connecting to the kernel", e))?;
    let request = set_up_request();
    socket
        .send(&request, 0)
        .map_err(|e| fail("sending RTM_NEWLINK", e))?;
    for _ in 0..MAX_REPLIES {
        let (reply, _) = socket
            .recv_from_full()
            .map_err(|e| fail("reading the kernel's answer", e))?;
        if let Some(answer) = answer_of(&reply) {
            return answer.map_err(|e| fail("RTM_NEWLINK was refused", e));
        }
    }
    Err(format!(
        "bringing the loopback up: no answer from the kernel in {MAX_REPLIES} replies"
    ))
}

/// `RTM_NEWLINK` for the loopback with `IFF_UP` set, asking for an
/// acknowledgement.
fn set_up_request() -> Vec<u8> {
    let mut link = LinkMessage::default();
    link.header.index = LOOPBACK_INDEX;
    link.header.flags = LinkFlags::Up;
    link.header.change_mask = LinkFlags::Up;
    let mut header = NetlinkHeader::default();
    header.flags = NLM_F_REQUEST | NLM_F_ACK;
    header.sequence_number = 1;
    let mut message = NetlinkMessage::new(
        header,
        NetlinkPayload::from(RouteNetlinkMessage::NewLink(link)),
    );
    message.finalize();
    let mut bytes = vec![0; message.buffer_len()];
    message.serialize(&mut bytes);
    bytes
}

/// What a reply says: `Some(Ok)` for the acknowledgement, `Some(Err)` for
/// the kernel's error, `None` for anything else (read on).
fn answer_of(reply: &[u8]) -> Option<Result<(), std::io::Error>> {
    let message = NetlinkMessage::<RouteNetlinkMessage>::deserialize(reply).ok()?;
    match message.payload {
        NetlinkPayload::Error(error) if error.code.is_none() => Some(Ok(())),
        NetlinkPayload::Error(error) => Some(Err(error.to_io())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_request_is_a_new_link_for_index_one_with_up_set_and_asks_for_an_ack() {
        let bytes = set_up_request();
        let message = NetlinkMessage::<RouteNetlinkMessage>::deserialize(&bytes).unwrap();
        assert_eq!(message.header.flags, NLM_F_REQUEST | NLM_F_ACK);
        let NetlinkPayload::InnerMessage(RouteNetlinkMessage::NewLink(link)) = message.payload
        else {
            panic!("not RTM_NEWLINK: {message:?}");
        };
        assert_eq!(link.header.index, 1);
        assert_eq!(link.header.flags, LinkFlags::Up);
        assert_eq!(link.header.change_mask, LinkFlags::Up);
        assert!(link.attributes.is_empty());
    }
}
