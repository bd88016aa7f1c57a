//! Values in the query of an API request (`labelSelector=`, `continue=`, `fieldManager=`).

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

/// What stays as it is in a query value: RFC 3986's unreserved characters.
const QUERY_VALUE: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// `s` percent-encoded for a query parameter's value.
pub fn encode(s: &str) -> String {
    utf8_percent_encode(s, QUERY_VALUE).to_string()
}

#[cfg(test)]
mod tests {
    use super::encode;

    #[test]
    fn only_unreserved_characters_stay_as_they_are() {
        assert_eq!(
            encode("app.kubernetes.io/managed-by=kf"),
            "app.kubernetes.io%2Fmanaged-by%3Dkf"
        );
        assert_eq!(encode("a,b !~_"), "a%2Cb%20%21~_");
        assert_eq!(encode("é"), "%C3%A9");
    }
}
