//! ksonnet's tables: upper-case headers, a `=` underline per header, columns padded to the
//! widest cell, one space between columns, trailing blanks trimmed.

pub fn render(headers: &[&str], rows: &[Vec<String>]) -> String {
    render_keeping_lines(headers, rows, None)
}

/// [`render`], with the line breaks of column `lines_in` kept (`param list` prints nested
/// values over several lines, as ksonnet did). Names come from untrusted folders: no other
/// cell carries a control character, so a name cannot forge a row or move the cursor.
fn render_keeping_lines(headers: &[&str], rows: &[Vec<String>], lines_in: Option<usize>) -> String {
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            r.iter()
                .enumerate()
                .map(|(i, c)| {
                    if Some(i) == lines_in {
                        c.split('\n')
                            .map(kf::message::printable)
                            .collect::<Vec<_>>()
                            .join("\n")
                    } else {
                        kf::message::printable(c).into_owned()
                    }
                })
                .collect()
        })
        .collect();
    let rows = &rows;
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

/// How a list command prints its table: `table` (and `wide`, the same columns), ksonnet's
/// `json` (`{"kind": <table>, "data": [{<column>: <cell>}]}`, every cell a string, what
/// `ks … -o json` printed), or the same document as `yaml`.
pub fn print(kind: &str, headers: &[&str], rows: &[Vec<String>], output: &str) {
    print_keeping_lines(kind, headers, rows, output, None)
}

/// [`print`], the table keeping the line breaks of column `lines_in`.
pub fn print_keeping_lines(
    kind: &str,
    headers: &[&str],
    rows: &[Vec<String>],
    output: &str,
    lines_in: Option<usize>,
) {
    match output {
        "json" | "yaml" => {
            let data: Vec<serde_json::Value> = rows
                .iter()
                .map(|row| {
                    let cells: serde_json::Map<String, serde_json::Value> = headers
                        .iter()
                        .zip(row)
                        .map(|(h, c)| (h.to_lowercase(), serde_json::Value::String(c.clone())))
                        .collect();
                    serde_json::Value::Object(cells)
                })
                .collect();
            let doc = serde_json::json!({ "kind": kind, "data": data });
            if output == "yaml" {
                print!("{}", serde_saphyr::to_string(&doc).unwrap_or_default());
            } else {
                println!("{}", tab_indented(&doc));
            }
        }
        _ => print!("{}", render_keeping_lines(headers, rows, lines_in)),
    }
}

/// JSON indented with tabs, keys sorted (Go's encoder, which ksonnet used).
fn tab_indented(value: &serde_json::Value) -> String {
    let mut buf = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b"\t");
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, formatter);
    let _ = serde::Serialize::serialize(value, &mut ser);
    String::from_utf8(buf).unwrap_or_default()
}

/// The values `-o` takes on list commands.
pub const LIST_OUTPUTS: [&str; 4] = ["table", "wide", "json", "yaml"];
