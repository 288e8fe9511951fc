//! A small Server-Sent Events client over `TcpStream` for the serve tests:
//! one GET, the chunked body decoded, the stream parsed into messages.
//! Every read is bounded by the socket's timeout.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Instant;

use super::serve_support::LIMIT;

/// One SSE message: the fields of one block up to a blank line.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Message {
    pub id: Option<String>,
    pub event: Option<String>,
    /// The `data:` lines joined with newlines; `None` without one.
    pub data: Option<String>,
    /// The `:` comment lines, without the colon and its space.
    pub comments: Vec<String>,
}

impl Message {
    /// The data as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(self.data.as_deref().unwrap_or(""))
            .unwrap_or_else(|e| panic!("data is not JSON ({e}): {self:?}"))
    }
}

/// An open event stream.
pub struct Stream {
    reader: BufReader<TcpStream>,
    /// Decoded body bytes not yet parsed.
    body: Vec<u8>,
    ended: bool,
}

/// What an event stream request got: the stream, or another answer.
pub enum Opened {
    Stream(Stream),
    /// A non-200 answer: the status and the body.
    Refused(u16, String),
}

/// GET `path` as an event stream, with the token and `Last-Event-ID`
/// when given.
pub fn open(url: &str, path: &str, token: Option<&str>, last_event_id: Option<&str>) -> Opened {
    let addr = url.strip_prefix("http://").unwrap();
    let mut socket = TcpStream::connect(addr).unwrap();
    socket.set_read_timeout(Some(LIMIT)).unwrap();
    socket.set_write_timeout(Some(LIMIT)).unwrap();
    let mut head = format!(
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\nConnection: close\r\n"
    );
    if let Some(t) = token {
        head.push_str(&format!("Authorization: Bearer {t}\r\n"));
    }
    if let Some(id) = last_event_id {
        head.push_str(&format!("Last-Event-ID: {id}\r\n"));
    }
    head.push_str("\r\n");
    socket.write_all(head.as_bytes()).unwrap();
    let mut reader = BufReader::new(socket);
    let mut status_line = String::new();
    reader.read_line(&mut status_line).unwrap();
    let status: u16 = status_line.split(' ').nth(1).unwrap().parse().unwrap();
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((n, v)) = line.split_once(':') {
            headers.push((n.trim().to_ascii_lowercase(), v.trim().to_owned()));
        }
    }
    let header = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    };
    if status != 200 {
        let mut body = String::new();
        let _ = reader.read_to_string(&mut body);
        return Opened::Refused(status, body);
    }
    assert_eq!(
        header("content-type").as_deref(),
        Some("text/event-stream"),
        "{headers:?}"
    );
    assert_eq!(
        header("transfer-encoding").as_deref(),
        Some("chunked"),
        "{headers:?}"
    );
    Opened::Stream(Stream {
        reader,
        body: Vec::new(),
        ended: false,
    })
}

/// GET `path` as an event stream that must open.
pub fn stream(url: &str, path: &str, token: &str, last_event_id: Option<&str>) -> Stream {
    match open(url, path, Some(token), last_event_id) {
        Opened::Stream(s) => s,
        Opened::Refused(status, body) => panic!("{path}: {status} {body}"),
    }
}

impl Stream {
    /// Decodes one more chunk into `body`; false at the end of the body.
    fn fill(&mut self) -> bool {
        if self.ended {
            return false;
        }
        let mut size_line = String::new();
        if self.reader.read_line(&mut size_line).unwrap() == 0 {
            self.ended = true;
            return false;
        }
        let size = usize::from_str_radix(size_line.trim(), 16)
            .unwrap_or_else(|_| panic!("bad chunk size line {size_line:?}"));
        if size == 0 {
            self.ended = true;
            return false;
        }
        let mut chunk = vec![0u8; size + 2];
        self.reader.read_exact(&mut chunk).unwrap();
        assert_eq!(&chunk[size..], b"\r\n");
        self.body.extend_from_slice(&chunk[..size]);
        true
    }

    fn line(&mut self) -> Option<String> {
        loop {
            if let Some(pos) = self.body.iter().position(|b| *b == b'\n') {
                let line: Vec<u8> = self.body.drain(..=pos).collect();
                return Some(String::from_utf8(line[..pos].to_vec()).unwrap());
            }
            if !self.fill() {
                assert!(self.body.is_empty(), "the stream ended mid-line");
                return None;
            }
        }
    }

    /// The next message (a keep-alive comment is one too); `None` once the
    /// server ended the stream.
    pub fn next(&mut self) -> Option<Message> {
        let mut message = Message::default();
        let mut any = false;
        loop {
            let line = match self.line() {
                Some(line) => line,
                None => {
                    assert!(!any, "the stream ended inside a message: {message:?}");
                    return None;
                }
            };
            if line.is_empty() {
                if any {
                    return Some(message);
                }
                continue;
            }
            any = true;
            let (field, value) = line.split_once(':').unwrap_or((line.as_str(), ""));
            let value = value.strip_prefix(' ').unwrap_or(value).to_owned();
            match field {
                "" => message.comments.push(value),
                "id" => message.id = Some(value),
                "event" => message.event = Some(value),
                "data" => {
                    message.data = Some(match message.data.take() {
                        Some(d) => format!("{d}\n{value}"),
                        None => value,
                    })
                }
                other => panic!("unexpected SSE field {other:?} in {line:?}"),
            }
        }
    }

    /// The next message that is not a keep-alive comment, within
    /// [`LIMIT`] (keep-alives alone never satisfy the socket's timeout).
    pub fn next_event(&mut self) -> Option<Message> {
        let start = Instant::now();
        loop {
            let message = self.next()?;
            if message.data.is_some() || message.event.is_some() {
                return Some(message);
            }
            assert!(
                start.elapsed() < LIMIT,
                "only keep-alives for {LIMIT:?}, no event"
            );
        }
    }

    /// Every message to the end, keep-alives left out.
    pub fn rest(&mut self) -> Vec<Message> {
        let mut all = Vec::new();
        let start = Instant::now();
        while let Some(m) = self.next_event() {
            assert!(start.elapsed() < LIMIT * 2, "the stream does not end");
            all.push(m);
        }
        all
    }
}
