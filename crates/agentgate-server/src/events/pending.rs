//! The line a follower assembles from the chunks it reads: whole up to
//! the line limit, past it only its start and its length.

use super::MAX_LINE;

/// The start of a line whose newline has not been read yet: its bytes up
/// to [`MAX_LINE`]; past that, only its first
/// [`agentgate_store::PREFIX_BYTES`] and its length.
#[derive(Default)]
pub(super) struct Pending {
    bytes: Vec<u8>,
    /// The line went past [`MAX_LINE`]: its length so far.
    over: Option<u64>,
}

/// A line once its newline came.
pub(super) enum Whole {
    /// All of it is the bytes before the newline in the chunk just read.
    Borrowed,
    /// It started in an earlier chunk.
    Owned(Vec<u8>),
    /// It was over the limit.
    Over { prefix: Vec<u8>, total: u64 },
}

impl Pending {
    /// Bytes of the line, without its end yet.
    pub(super) fn add(&mut self, bytes: &[u8]) {
        if let Some(total) = self.over.as_mut() {
            *total += bytes.len() as u64;
            return;
        }
        self.bytes.extend_from_slice(bytes);
        if self.bytes.len() > MAX_LINE {
            self.over = Some(self.bytes.len() as u64);
            self.bytes.truncate(agentgate_store::PREFIX_BYTES);
            self.bytes.shrink_to_fit();
        }
    }

    /// The line that `head` (the bytes before a newline) ends.
    pub(super) fn take_line(&mut self, head: &[u8]) -> Whole {
        if self.over.is_none() && self.bytes.is_empty() && head.len() <= MAX_LINE {
            return Whole::Borrowed;
        }
        self.add(head);
        let taken = std::mem::take(self);
        match taken.over {
            Some(total) => Whole::Over {
                prefix: taken.bytes,
                total,
            },
            None => Whole::Owned(taken.bytes),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_over_the_limit_keeps_its_start_and_its_length() {
        let mut p = Pending::default();
        assert!(matches!(p.take_line(b"short"), Whole::Borrowed));
        p.add(b"ab");
        assert!(matches!(p.take_line(b"c"), Whole::Owned(line) if line == b"abc"));
        let big = vec![b'x'; MAX_LINE];
        p.add(&big);
        p.add(b"yy");
        match p.take_line(b"z") {
            Whole::Over { prefix, total } => {
                assert_eq!(total, MAX_LINE as u64 + 3);
                assert_eq!(prefix.len(), agentgate_store::PREFIX_BYTES);
            }
            _ => panic!("not cut"),
        }
        assert!(matches!(p.take_line(b"next"), Whole::Borrowed));
    }
}
