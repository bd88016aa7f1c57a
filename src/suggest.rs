//! "Did you mean …?" for every lookup by name that can miss.

/// Names close to `wanted`, best first (at most three).
pub fn closest<'a>(wanted: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut scored: Vec<(f64, &str)> = candidates
        .into_iter()
        .map(|c| {
            let score = if c.contains(wanted) || wanted.contains(c) {
                1.0
            } else {
                strsim::jaro_winkler(wanted, c)
            };
            (score, c)
        })
        .filter(|(score, _)| *score >= 0.75)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    scored
        .into_iter()
        .take(3)
        .map(|(_, c)| c.to_string())
        .collect()
}

/// ` (did you mean 'a' or 'b'?)` or, with no close name, ` (known: a, b, c)`.
pub fn hint<'a>(wanted: &str, candidates: impl IntoIterator<Item = &'a str> + Clone) -> String {
    let close = closest(wanted, candidates.clone());
    if close.is_empty() {
        let all: Vec<&str> = candidates.into_iter().collect();
        if all.is_empty() {
            String::new()
        } else {
            format!(" (known: {})", all.join(", "))
        }
    } else {
        let quoted: Vec<String> = close.iter().map(|c| format!("'{c}'")).collect();
        format!(" (did you mean {}?)", quoted.join(" or "))
    }
}
