//! ksonnet's tables: upper-case headers, a `=` underline per header, columns padded to the
//! widest cell, one space between columns, trailing blanks trimmed.

pub fn render(headers: &[&str], rows: &[Vec<String>]) -> String {
    let cols = headers.len();
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate().take(cols) {
            widths[i] = widths[i].max(cell.chars().count());
        }
    }
    let underline: Vec<String> = headers
        .iter()
        .map(|h| "=".repeat(h.chars().count()))
        .collect();
    let header_row: Vec<String> = headers.iter().map(|h| h.to_uppercase()).collect();
    let mut out = String::new();
    for row in std::iter::once(&header_row)
        .chain(std::iter::once(&underline))
        .chain(rows.iter())
    {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate().take(cols) {
            if i + 1 < cols {
                line.push_str(&format!("{cell:<w$} ", w = widths[i]));
            } else {
                line.push_str(cell);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
