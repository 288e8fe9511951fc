//! The plain-text tables of the listing commands (`providers`, `health`,
//! `tools list`): each column padded to its widest cell, the last one not
//! padded (it may be long: a path, an error).

use std::fmt::Write as _;

/// `header` and `rows` as aligned lines, each ending with a newline.
pub(crate) fn aligned<const N: usize>(header: [&str; N], rows: &[[String; N]]) -> String {
    let header = header.map(str::to_owned);
    let mut widths = [0usize; N];
    for row in std::iter::once(&header).chain(rows) {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(&header).chain(rows) {
        let mut line = String::new();
        for (i, (cell, w)) in row.iter().zip(widths).enumerate() {
            if i + 1 == N {
                line.push_str(cell);
            } else {
                let _ = write!(line, "{cell:<w$}  ");
            }
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_padded_to_their_widest_cell_but_the_last() {
        let rows = [
            [
                "claude".to_owned(),
                "yes".to_owned(),
                "a long last cell".to_owned(),
            ],
            ["qwen".to_owned(), "no".to_owned(), String::new()],
        ];
        assert_eq!(
            aligned(["NAME", "INSTALLED", "PATH"], &rows),
            "NAME    INSTALLED  PATH\nclaude  yes        a long last cell\nqwen    no\n"
        );
    }
}
