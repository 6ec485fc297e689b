// A Blueprint `gated` whose `http.post` calls in `main` wait for a person (ask-human), for the
// approval tests. typecheck: off (types stripped, not checked): no program there is about
// types, and each server would load a type checker for them (about 1 CPU-s).
export const GATED_BLUEPRINT = 'name: gated\nallow_insecure_http: true\ndefault: allow\ntypecheck: off\npermissions:\n  main:\n    - capability: http.post\n      action: ask-human\n';
