//! What a warm keeper is asked to run, and how the request crosses its
//! control socket.
//!
//! A warm keeper (see `warm.rs`) is started before agentgate knows the CLI,
//! so everything a cold keeper gets from its own command line and process
//! (the program, its arguments, the environment, the working directory)
//! comes in one request on its stdin, a socket. The frame is a 4-byte
//! little-endian length, then the body: a magic tag, a flags byte, and
//! length-prefixed byte strings (a count first for the lists). Bytes, not
//! UTF-8: paths, arguments and environment values are any `OsString`.
//!
//! The keeper reads exactly one frame and nothing more, so that what
//! follows on the socket is the CLI's stdin when the request says so.

use std::ffi::OsString;
use std::io::Read;
use std::os::unix::ffi::{OsStrExt as _, OsStringExt as _};
use std::path::PathBuf;

/// The argument after the parent pid that starts a keeper warm:
/// `__keeper <parent-pid> --warm`.
pub(crate) const WARM_FLAG: &str = "--warm";

/// The first bytes of every request body (the format's version is in it).
const MAGIC: &[u8; 4] = b"AGK1";

/// The largest request body accepted: far above any real argument list and
/// environment (Linux caps both together at a few MiB), small enough that
/// a corrupt length cannot make the keeper allocate without bound.
pub(crate) const MAX_REQUEST_BYTES: usize = 16 * 1024 * 1024;

/// Flag bit: the CLI's stdin is the rest of the control socket (else it is
/// `/dev/null`).
const FLAG_STDIN: u8 = 1;

/// What the keeper runs: the program as the cold keeper would exec it, with
/// exactly this environment, in this folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Request {
    /// The program, already resolved (a path, never looked up on `PATH`).
    pub(crate) program: PathBuf,
    pub(crate) args: Vec<OsString>,
    /// The whole environment of the CLI (the keeper clears its own).
    pub(crate) env: Vec<(OsString, OsString)>,
    /// The folder to run in; `None` keeps the keeper's.
    pub(crate) cwd: Option<PathBuf>,
    /// Whether the CLI reads the rest of the control socket as its stdin.
    pub(crate) stdin: bool,
}

impl Request {
    /// The frame: length, then body.
    pub(crate) fn encode(&self) -> Result<Vec<u8>, String> {
        let mut body = Vec::with_capacity(256);
        body.extend_from_slice(MAGIC);
        body.push(if self.stdin { FLAG_STDIN } else { 0 });
        let cwd = self.cwd.as_deref().map(|p| p.as_os_str().as_bytes());
        put_bytes(&mut body, cwd.unwrap_or_default())?;
        put_bytes(&mut body, self.program.as_os_str().as_bytes())?;
        put_len(&mut body, self.args.len())?;
        for arg in &self.args {
            put_bytes(&mut body, arg.as_bytes())?;
        }
        put_len(&mut body, self.env.len())?;
        for (name, value) in &self.env {
            put_bytes(&mut body, name.as_bytes())?;
            put_bytes(&mut body, value.as_bytes())?;
        }
        if body.len() > MAX_REQUEST_BYTES {
            return Err(format!(
                "the command and environment take {} bytes, more than the keeper accepts ({MAX_REQUEST_BYTES})",
                body.len()
            ));
        }
        let mut frame = Vec::with_capacity(4 + body.len());
        put_len(&mut frame, body.len())?;
        frame.extend_from_slice(&body);
        Ok(frame)
    }

    /// Reads one frame from `from`, not a byte past it. `Ok(None)`: the
    /// socket closed before any byte (agentgate did not need this keeper).
    pub(crate) fn read(from: &mut impl Read) -> Result<Option<Request>, String> {
        let mut len = [0u8; 4];
        match read_exact_or_eof(from, &mut len)? {
            Filled::Eof => return Ok(None),
            Filled::Partial => return Err("the request ended inside its length".into()),
            Filled::Full => {}
        }
        let len = usize::try_from(u32::from_le_bytes(len))
            .map_err(|_| "the request length does not fit in memory".to_owned())?;
        if len > MAX_REQUEST_BYTES {
            return Err(format!(
                "the request claims {len} bytes, more than {MAX_REQUEST_BYTES}"
            ));
        }
        let mut body = vec![0u8; len];
        match read_exact_or_eof(from, &mut body)? {
            Filled::Full => Self::decode(&body).map(Some),
            Filled::Eof | Filled::Partial => Err(format!(
                "the request ended before its {len} bytes were read"
            )),
        }
    }

    fn decode(body: &[u8]) -> Result<Request, String> {
        let mut cur = Cursor { rest: body };
        if cur.take(MAGIC.len())? != MAGIC {
            return Err("the request does not start with the keeper's tag".into());
        }
        let flags = cur.take(1)?[0];
        let cwd = cur.bytes()?;
        let cwd = (!cwd.is_empty()).then(|| PathBuf::from(os(cwd)));
        let program = PathBuf::from(os(cur.bytes()?));
        if program.as_os_str().is_empty() {
            return Err("the request names no program".into());
        }
        let nargs = cur.len()?;
        let mut args = Vec::new();
        for _ in 0..nargs {
            args.push(os(cur.bytes()?));
        }
        let nenv = cur.len()?;
        let mut env = Vec::new();
        for _ in 0..nenv {
            let name = os(cur.bytes()?);
            let value = os(cur.bytes()?);
            env.push((name, value));
        }
        if !cur.rest.is_empty() {
            return Err(format!(
                "{} bytes follow the request's last field",
                cur.rest.len()
            ));
        }
        Ok(Request {
            program,
            args,
            env,
            cwd,
            stdin: flags & FLAG_STDIN != 0,
        })
    }
}

fn os(bytes: &[u8]) -> OsString {
    OsString::from_vec(bytes.to_vec())
}

fn put_len(out: &mut Vec<u8>, n: usize) -> Result<(), String> {
    let n = u32::try_from(n).map_err(|_| format!("a request field of {n} bytes is too long"))?;
    out.extend_from_slice(&n.to_le_bytes());
    Ok(())
}

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) -> Result<(), String> {
    put_len(out, bytes.len())?;
    out.extend_from_slice(bytes);
    Ok(())
}

/// The unread part of a request body.
struct Cursor<'a> {
    rest: &'a [u8],
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if self.rest.len() < n {
            return Err("the request is cut short".into());
        }
        let (head, tail) = self.rest.split_at(n);
        self.rest = tail;
        Ok(head)
    }

    fn len(&mut self) -> Result<usize, String> {
        let raw = self.take(4)?;
        let mut four = [0u8; 4];
        four.copy_from_slice(raw);
        let n = usize::try_from(u32::from_le_bytes(four))
            .map_err(|_| "a request field length does not fit in memory".to_owned())?;
        // A count or a length can never exceed the bytes left: checking it
        // here keeps a corrupt count from looping or allocating.
        if n > self.rest.len() {
            return Err("the request is cut short".into());
        }
        Ok(n)
    }

    fn bytes(&mut self) -> Result<&'a [u8], String> {
        let n = self.len()?;
        self.take(n)
    }
}

enum Filled {
    Full,
    Partial,
    Eof,
}

/// Fills `buf`, retrying on interruption; says whether the stream ended
/// before the first byte, inside, or not at all.
fn read_exact_or_eof(from: &mut impl Read, buf: &mut [u8]) -> Result<Filled, String> {
    let mut done = 0;
    while done < buf.len() {
        match from.read(&mut buf[done..]) {
            Ok(0) if done == 0 => return Ok(Filled::Eof),
            Ok(0) => return Ok(Filled::Partial),
            Ok(n) => done += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(format!("failed to read the request: {e}")),
        }
    }
    Ok(Filled::Full)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Request {
        Request {
            program: PathBuf::from("/usr/bin/tool"),
            args: vec!["-p".into(), OsString::from_vec(vec![0xff, b'x']), "".into()],
            env: vec![("A".into(), "1".into()), ("EMPTY".into(), "".into())],
            cwd: Some(PathBuf::from("/tmp/work dir")),
            stdin: true,
        }
    }

    #[test]
    fn a_request_reads_back_and_stops_at_its_end() {
        let req = sample();
        let mut bytes = req.encode().unwrap();
        bytes.extend_from_slice(b"the CLI's stdin");
        let mut reader = &bytes[..];
        assert_eq!(Request::read(&mut reader).unwrap(), Some(req));
        assert_eq!(reader, b"the CLI's stdin");
    }

    #[test]
    fn no_cwd_and_no_stdin_read_back() {
        let req = Request {
            cwd: None,
            stdin: false,
            args: Vec::new(),
            env: Vec::new(),
            ..sample()
        };
        let bytes = req.encode().unwrap();
        assert_eq!(Request::read(&mut &bytes[..]).unwrap(), Some(req));
    }

    #[test]
    fn a_closed_socket_is_no_request() {
        assert_eq!(Request::read(&mut &b""[..]).unwrap(), None);
    }

    #[test]
    fn every_truncation_is_an_error() {
        let bytes = sample().encode().unwrap();
        for cut in 1..bytes.len() {
            assert!(
                Request::read(&mut &bytes[..cut]).is_err(),
                "cut at {cut} was accepted"
            );
        }
    }

    #[test]
    fn a_huge_length_or_count_is_refused_without_allocating() {
        let frame = u32::MAX.to_le_bytes();
        let err = Request::read(&mut &frame[..]).unwrap_err();
        assert!(err.contains("more than"), "{err}");
        // A body whose argument count claims more than the body holds.
        let mut body = MAGIC.to_vec();
        body.push(0);
        body.extend_from_slice(&0u32.to_le_bytes());
        body.extend_from_slice(&1u32.to_le_bytes());
        body.push(b'x');
        body.extend_from_slice(&u32::MAX.to_le_bytes());
        let mut frame = u32::try_from(body.len()).unwrap().to_le_bytes().to_vec();
        frame.extend_from_slice(&body);
        assert!(Request::read(&mut &frame[..]).is_err());
    }

    #[test]
    fn a_wrong_tag_or_trailing_bytes_are_refused() {
        let mut bytes = sample().encode().unwrap();
        bytes[4] = b'X';
        assert!(Request::read(&mut &bytes[..]).unwrap_err().contains("tag"));
        let mut bytes = sample().encode().unwrap();
        bytes.push(0);
        let len = u32::try_from(bytes.len() - 4).unwrap().to_le_bytes();
        bytes[..4].copy_from_slice(&len);
        assert!(
            Request::read(&mut &bytes[..])
                .unwrap_err()
                .contains("follow")
        );
    }
}
