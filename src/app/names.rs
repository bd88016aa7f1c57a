//! The names kf accepts for components and environments: what ksonnet allowed, minus
//! anything that could leave the folder it names or break a Jsonnet field name.

use super::AppError;

/// Component and prototype-instance names: what ksonnet allowed, minus anything that could
/// escape `components/` or break a Jsonnet field name.
pub fn validate_component_name(name: &str) -> Result<(), AppError> {
    validate_segment("component", name)
}

/// Environment names may nest (`us-west/prod`); each segment follows the component rules.
pub fn validate_env_name(name: &str) -> Result<(), AppError> {
    if name.is_empty() {
        return Err(AppError::InvalidName {
            what: "environment",
            name: name.to_string(),
            why: "it is empty",
        });
    }
    for seg in name.split('/') {
        validate_segment("environment", seg).map_err(|_| AppError::InvalidName {
            what: "environment",
            name: name.to_string(),
            why: "each '/'-separated part must be letters, digits, '-', '_' or '.', not starting with '.'",
        })?;
    }
    Ok(())
}

pub(super) fn validate_segment(what: &'static str, name: &str) -> Result<(), AppError> {
    let bad = |why| {
        Err(AppError::InvalidName {
            what,
            name: name.to_string(),
            why,
        })
    };
    if name.is_empty() {
        return bad("it is empty");
    }
    if name.len() > 253 {
        return bad("it is longer than 253 characters");
    }
    if name.contains('/') || name.contains('\\') {
        return bad("it contains a path separator");
    }
    if name.starts_with('.') {
        return bad("it starts with '.'");
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        return bad("only letters, digits, '-', '_' and '.' are allowed");
    }
    Ok(())
}
