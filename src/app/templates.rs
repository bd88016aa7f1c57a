//! The files `kf init` and `kf env add` write: ksonnet 0.13's layout and semantics, in
//! kf's own words.

pub const GITIGNORE: &str = "/lib\n/.ksonnet/registries\n/app.override.yaml\n/.ks_environment\n/.kf.lock\n/.kf-*\n**/.kf-*\n";

pub const COMPONENT_PARAMS: &str = r#"{
  global: {
    // Params shared by every component; each one is merge-patched into every
    // component's own params (a global value wins). Ex:
    // replicas: 4,
  },
  components: {
    // One object per component in components/, keyed by component name.
    // `kf generate` and `kf param set` keep this in step.
  },
}
"#;

pub const BASE: &str = r#"local components = std.extVar("__ksonnet/components");
components + {
  // Patches applied to the rendered components in every environment.
}
"#;

pub const ENV_MAIN: &str = r#"local base = import "base.libsonnet";
// To build patches with ksonnet-lib, import it here:
// local k = import "k.libsonnet";

base + {
  // Patches of rendered components for this environment only, e.g.
  // "my-component"+: { metadata+: { labels+: { tier: "prod" } } },
}
"#;

pub const ENV_PARAMS: &str = r#"local params = std.extVar("__ksonnet/params");
local globals = import "globals.libsonnet";
local envParams = params + {
  components+: {
    // Component params overridden in this environment, e.g.
    // "my-component"+: { replicas: 3 },
  },
};

{
  components: {
    [x]: envParams.components[x] + globals
    for x in std.objectFields(envParams.components)
  },
}
"#;

pub const ENV_GLOBALS: &str = "{\n}\n";
