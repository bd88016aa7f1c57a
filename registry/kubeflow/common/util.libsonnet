// Shared helpers for the kubeflow packages: type-safe param coercion,
// namespaces, labels and Lists. Every prototype of the registry goes through
// these so that "0", 0, null and "null" mean the same thing everywhere.
{
  // True for the values ksonnet-era params use to say "not set":
  // null, the string "null" (a string param whose default is null) and "".
  isNone(v):: v == null || (std.isString(v) && (v == '' || v == 'null')),

  // Why `name` is not a DNS-1035 label, or null when it is one: lower-case letters,
  // digits and '-', starting with a letter and ending with a letter or digit, at most 63
  // characters (apimachinery's IsDNS1035Label, which the job operators check names by).
  dns1035Problem(name)::
    local s = std.toString(name);
    local n = std.length(s);
    local lower(c) = c >= 'a' && c <= 'z';
    local bad = [c for c in std.stringChars(s) if !(lower(c) || (c >= '0' && c <= '9') || c == '-')];
    if n == 0 then 'it is empty'
    else if n > 63 then 'it is %d characters long, more than 63' % n
    else if bad != [] then 'it holds %s; only a-z, 0-9 and - may appear' % std.manifestJson(bad[0])
    else if !lower(s[0]) then 'it starts with %s, not a lower-case letter' % std.manifestJson(s[0])
    else if s[n - 1] == '-' then 'it ends with -'
    else null,

  // A whole number from a number, a numeric string or a "not set" value (0).
  toInt(v, what='value')::
    if self.isNone(v) then 0
    else if std.isNumber(v) then
      if std.floor(v) == v then v
      else error '%s: %s is not a whole number' % [what, v]
    else if std.isString(v) then
      local s = std.stripChars(v, ' ');
      local digits = std.lstripChars(s, '+');
      if std.length(digits) > 0 && std.all([std.member('0123456789', c) for c in std.stringChars(digits)])
      then std.parseInt(digits)
      else error '%s: "%s" is not a whole number' % [what, v]
    else error '%s: expected a number, got %s' % [what, std.type(v)],

  // A boolean from a boolean, "true"/"false" in any case, or a number.
  toBool(v, what='value')::
    if self.isNone(v) then false
    else if std.isBoolean(v) then v
    else if std.isNumber(v) then v != 0
    else if std.isString(v) then
      local l = std.asciiLower(std.stripChars(v, ' '));
      if l == 'true' || l == 'yes' || l == '1' then true
      else if l == 'false' || l == 'no' || l == '0' then false
      else error '%s: "%s" is not true or false' % [what, v]
    else error '%s: expected a boolean, got %s' % [what, std.type(v)],

  // A string or "not set" (null).
  toStringOrNull(v):: if self.isNone(v) then null else std.toString(v),

  // A whole number, or null when not set (for fields omitted unless given).
  // Negative numbers are refused.
  optInt(v, what='value')::
    if self.isNone(v) then null
    else
      local n = self.toInt(v, what);
      if n < 0 then error '%s: %d is negative' % [what, n] else n,

  // An int-or-string count of pods (a PodDisruptionBudget's minAvailable): a whole
  // number, or a percentage such as "50%"; null when not set. A numeric string becomes
  // a number: the API server reads "2" as a malformed percentage.
  intOrPercent(v, what='value')::
    if self.isNone(v) then null
    else if std.isString(v) && std.endsWith(std.stripChars(v, ' '), '%') then
      local s = std.stripChars(v, ' ');
      local n = self.toInt(std.substr(s, 0, std.length(s) - 1), what);
      if n > 100 then error '%s: %s is over 100%%' % [what, v] else '%d%%' % n
    else self.optInt(v, what),

  // The value (a string) when it is one of `allowed`, else a clear error;
  // null when not set.
  oneOf(v, allowed, what='value')::
    if self.isNone(v) then null
    else if std.member(allowed, std.toString(v)) then std.toString(v)
    else error '%s: "%s" is not one of %s' % [what, v, std.join(', ', allowed)],

  // An object from an object or a "k=v,k2=v2" string ({} when not set).
  kvObject(v, what='value')::
    if self.isNone(v) then {}
    else if std.isObject(v) then v
    else if std.isString(v) then {
      [std.stripChars(std.splitLimit(pair, '=', 1)[0], ' ')]:
        local kv = std.splitLimit(pair, '=', 1);
        if std.length(kv) == 2 then std.stripChars(kv[1], ' ')
        else error '%s: "%s" is not key=value' % [what, pair]
      for pair in std.split(v, ',')
      if std.stripChars(pair, ' ') != ''
    }
    else error '%s: expected an object or "key=value,..." string, got %s' % [what, std.type(v)],

  // An array from an array, a comma-separated string or a "not set" value ([]).
  toArray(v, what='value')::
    if self.isNone(v) then []
    else if std.isArray(v) then v
    else if std.isString(v) then [std.stripChars(s, ' ') for s in std.split(v, ',') if std.stripChars(s, ' ') != '']
    else error '%s: expected an array or a comma-separated string, got %s' % [what, std.type(v)],

  // Container args: an array, or a string split on spaces.
  toArgs(v)::
    if self.isNone(v) then []
    else if std.isArray(v) then v
    else if std.isString(v) then [s for s in std.split(v, ' ') if s != '']
    else error 'args: expected an array or a string, got %s' % std.type(v),

  // [{name, value}] from an object or "K=v,K2=v2" (sorted by name).
  envVars(v, what='envVars')::
    if std.isArray(v) then v
    else
      local o = self.kvObject(v, what);
      [{ name: k, value: std.toString(o[k]) } for k in std.objectFields(o)],

  // The container environment variables a component sets: its `envVars` param
  // (not `env`, which would collide with kf's --env flag), or `env` in a
  // component generated before the rename.
  envParam(params)::
    local v = self.get(params, 'envVars');
    if v == null || v == {} || v == [] then self.get(params, 'env') else v,

  // The object's field when present and set, else the default.
  get(o, field, default=null)::
    if std.objectHas(o, field) && !self.isNone(o[field]) then o[field] else default,

  // The namespace a component's objects go to: its `namespace` param when
  // set, else the environment's namespace.
  namespace(params, env)::
    local fromEnv = if std.objectHas(env, 'namespace') then env.namespace else 'default';
    self.get(params, 'namespace', fromEnv),

  // Standard labels for an object of an app.
  labels(name, extra={}):: { app: name } + (if self.isNone(extra) then {} else self.kvObject(extra)),

  // A v1 List of the given objects (nulls dropped); kf flattens it on output.
  list(items)::
    // Every item is evaluated by foldl before the comprehension reads it: an error in an
    // item (a bad param value) that an array comprehension meets first is lost by
    // jrsonnet 0.5.0-pre98 (its eager path fails, and the lazy one it falls back to
    // finds the item half-evaluated), which reports "infinite recursion detected".
    local present = std.foldl(function(n, i) if i == null then n else n + 1, items, 0);
    {
      apiVersion: 'v1',
      kind: 'List',
      items: if present == 0 then [] else [i for i in items if i != null],
    },

  // Drops fields whose value is null, {} or [] (one level deep).
  prune(o):: {
    [k]: o[k]
    for k in std.objectFields(o)
    if !(o[k] == null || o[k] == {} || o[k] == [])
  },
}
