// Generated from svc's OpenAPI document by scripts/generate-client-types.mjs (`npm run generate`):
// do not edit. The friendly names are in types.ts.

export interface paths {
    "/v1/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Server status */
        get: operations["getV1Status"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/shutdown": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Drain and exit */
        post: operations["postV1Shutdown"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/volumes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Declared volume names */
        get: operations["getV1Volumes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/blueprints/{name}/prompt": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Execute-tool description and the other tool descriptions */
        get: operations["getV1BlueprintsBy_namePrompt"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/blueprints/{name}/packages/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Search modules and Packages */
        get: operations["getV1BlueprintsBy_namePackagesSearch"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/blueprints/{name}/packages/docs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A module's or Package's declarations */
        get: operations["getV1BlueprintsBy_namePackagesDocs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/blueprints/{name}/builtins": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Built-ins in scope without import */
        get: operations["getV1BlueprintsBy_nameBuiltins"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/blueprints/{name}/builtins/docs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Declarations of built-ins */
        get: operations["getV1BlueprintsBy_nameBuiltinsDocs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/blueprints": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Usable Blueprints */
        get: operations["getV1Blueprints"];
        put?: never;
        /** Register a Blueprint */
        post: operations["postV1Blueprints"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/blueprints/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Stored text and hash */
        get: operations["getV1BlueprintsBy_name"];
        /** Create or replace */
        put: operations["putV1BlueprintsBy_name"];
        post?: never;
        /** Remove a Blueprint (ends its sessions) */
        delete: operations["deleteV1BlueprintsBy_name"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/capabilities": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Capability catalogue with filter fields */
        get: operations["getV1Capabilities"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/secrets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Secret keys */
        get: operations["getV1Secrets"];
        put?: never;
        /** Store a secret (never returned) */
        post: operations["postV1Secrets"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/secrets/{key}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove a secret (`/` allowed in the key, raw or `%2F`) */
        delete: operations["deleteV1SecretsBy_key"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/packages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Installed Packages */
        get: operations["getV1Packages"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/packages/install": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Install Packages from a repository */
        post: operations["postV1PackagesInstall"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/packages/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove an installed Package */
        delete: operations["deleteV1PackagesBy_name"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/mcp/{blueprint}/auth-status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** OAuth state of a Blueprint's MCP servers */
        get: operations["getV1McpBy_blueprintAuthStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/mcp/{blueprint}/{server}/auth-config": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** OAuth metadata for a login */
        get: operations["getV1McpBy_blueprintBy_serverAuthConfig"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/mcp/{blueprint}/{server}/refresh-token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Store a refresh or access token */
        post: operations["postV1McpBy_blueprintBy_serverRefreshToken"];
        /** Remove the stored credential */
        delete: operations["deleteV1McpBy_blueprintBy_serverRefreshToken"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/mcp/{blueprint}/{server}/oauth/exchange": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Exchange an authorization code (PKCE) */
        post: operations["postV1McpBy_blueprintBy_serverOauthExchange"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/execute": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** One-off run in a throw-away session */
        post: operations["postV1Execute"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Open sessions: the caller's own (admin tokens: every one) */
        get: operations["getV1Sessions"];
        put?: never;
        /** Open a session */
        post: operations["postV1Sessions"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/execute": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Run a program in a session */
        post: operations["postV1SessionsBy_session_idExecute"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/rebind": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Replace the harness secrets */
        post: operations["postV1SessionsBy_session_idRebind"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/last-run": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The last run with its full console */
        get: operations["getV1SessionsBy_session_idLastRun"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** End a session */
        delete: operations["deleteV1SessionsBy_session_id"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/runs/{execution_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A run's record; with `wait`, held until it finishes */
        get: operations["getV1RunsBy_execution_id"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Runs, newest first: the caller's own (admin tokens: every one) */
        get: operations["getV1Runs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/runs/{execution_id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Stop a run in flight: it ends `cancelled` */
        post: operations["postV1RunsBy_execution_idCancel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/runs/{execution_id}/tape": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A finished run's tape (svc.tape/1): program, journal and result, for `svc replay` */
        get: operations["getV1RunsBy_execution_idTape"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/runs/{execution_id}/fork": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Replay a run to a host call, substitute its answer, and continue live as a new run */
        post: operations["postV1RunsBy_execution_idFork"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/approvals": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Approvals that `ask-human` calls wait on (newest first) */
        get: operations["getV1Approvals"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/approvals/{approval_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One approval */
        get: operations["getV1ApprovalsBy_approval_id"];
        put?: never;
        /** Approve or deny a pending approval */
        post: operations["postV1ApprovalsBy_approval_id"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This document */
        get: operations["getV1OpenapiJson"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        Status: {
            /** @enum {string} */
            status: "running";
            bind_addr: string;
            pid: number;
            active_sessions: number;
            blueprints: string[];
            lookups?: {
                [key: string]: number;
            };
            token_budgets?: {
                [key: string]: {
                    spent: number;
                    reserved: number;
                    budget: number;
                };
            };
            runner_sandbox?: {
                /** @enum {string} */
                level: "full" | "partial" | "env-only";
                features: string[];
                missing: string[];
            };
        };
        /** @description `error` is a stable code, `message` is for people; some routes add fields */
        Error: {
            error: string;
            message?: string;
        } & {
            [key: string]: unknown;
        };
        ShutdownAccepted: {
            /** @enum {string} */
            status: "shutting-down";
        };
        VolumeList: {
            volumes: string[];
        };
        Prompt: {
            name: string;
            prompt: string;
            tools: {
                search: string;
                docs: string;
                builtins: string;
                builtins_list: string;
                builtins_docs: string;
                last_run: string;
            };
        };
        DiscoveryError: {
            error: string;
            message: string;
            name?: string;
            did_you_mean?: string;
        };
        PackageSearchResults: {
            results: components["schemas"]["SearchEntry"][];
            available_packages?: components["schemas"]["SearchEntry"][];
            builtins?: string;
            available_packages_omitted?: number;
        };
        SearchEntry: {
            name: string;
            description: string;
            /** @enum {string} */
            source: "host" | "registry" | "mcp";
        };
        PackageDocs: {
            name: string;
            source: string;
            description: string;
            declarations: string;
        };
        BuiltinsList: {
            namespaces: string[];
            types: string[];
            /** @description Global functions, the web platform's among them (fetch, setTimeout, queueMicrotask, ...) */
            functions: string[];
        };
        BuiltinsDocs: {
            results: ({
                name: string;
                declarations: string;
            } | {
                name: string;
                /** @enum {string} */
                error: "unknown_builtin" | "not_a_builtin";
                message: string;
                did_you_mean?: string;
            })[];
        };
        BlueprintRegistered: {
            name: string;
            hash: string;
        };
        BlueprintError: {
            error: string;
            message: string;
            name?: string;
            diagnostics?: {
                path?: (string | number)[];
                line?: number;
                col?: number;
                message: string;
            }[];
        };
        BlueprintDocument: {
            yaml: string;
        };
        BlueprintList: {
            blueprints: components["schemas"]["BlueprintSummary"][];
        };
        BlueprintSummary: {
            name: string;
            hash: string;
            /** @enum {string} */
            vfs_mode: "none" | "ephemeral" | "per_session" | "named";
            idle_timeout_secs: number | null;
            packages: string[];
            secrets: {
                name: string;
                /** @enum {string} */
                source: "store" | "harness";
                store_key?: string;
            }[];
            variables: string[];
            mcp_servers: string[];
            auth_proxy_hosts: string[];
            /**
             * @description The Blueprint's `default` (deny when it has none)
             * @enum {string}
             */
            default_action: "allow" | "deny" | "ask-human";
            caller_count: number;
            rule_count: number;
            capability_count: number;
        };
        BlueprintStored: {
            name: string;
            yaml: string;
            hash: string | null;
        };
        BlueprintReplaced: {
            name: string;
            created: boolean;
            hash: string;
        };
        BlueprintName: {
            name: string;
        };
        Capabilities: {
            groups: {
                source: string;
                /** @enum {string} */
                kind: "stdlib" | "package";
                capabilities: {
                    name: string;
                    summary: string;
                    filter_fields: string[];
                    fields: {
                        [key: string]: {
                            type: string;
                            description: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                    example_filter: string | null;
                    main_denial?: string;
                }[];
                /** @description Package groups: what its own code requires */
                requires?: {
                    capability: string;
                    filter?: string;
                }[];
            }[];
        };
        SecretKey: {
            key: string;
        };
        PutSecretRequest: {
            key: string;
            value: string;
        };
        SecretKeys: {
            keys: string[];
        };
        PackageList: {
            roots: string[];
            packages: ({
                name: string;
                version: string;
                description?: string;
                digest: string | null;
                root: string;
                managed: boolean;
            } & {
                [key: string]: unknown;
            })[];
        };
        PackageInstalled: {
            sha: string;
            installed: components["schemas"]["PackageRef"][];
            up_to_date: components["schemas"]["PackageRef"][];
            warnings: string[];
        };
        PackageRef: {
            name: string;
            version: string;
            digest: string;
        };
        PackageInstallRequest: {
            url: string;
            ref?: string | null;
            package?: string | null;
            upgrade?: boolean;
            deny_warnings?: boolean;
        };
        PackageRemoved: {
            name: string;
            version: string;
            digest: string;
            still_available_from?: string;
        };
        OAuthStatus: {
            blueprint: string;
            /** @enum {string} */
            state: "active" | "pending";
            servers: {
                name: string;
                /** @enum {string} */
                kind: "oauth" | "static" | "none";
                authenticated?: boolean;
            }[];
        };
        OAuthConfig: {
            url: string;
            client_id?: string;
            authorization_endpoint?: string;
            token_endpoint?: string;
            scopes?: string[];
        } & {
            [key: string]: unknown;
        };
        OAuthState: {
            /** @enum {string} */
            state: "active" | "pending";
            unauthenticated?: string[];
        };
        RefreshTokenRequest: {
            refresh_token?: string;
            access_token?: string;
            client_id?: string;
            /** Format: uri */
            token_endpoint?: string;
            scopes?: string[];
        };
        OAuthExchangeRequest: {
            code: string;
            redirect_uri: string;
            code_verifier: string;
            client_id?: string;
        };
        ExecuteResult: {
            execution_id: string;
            session_id: string;
            result: string | null;
            console: string[];
            error: components["schemas"]["ExecuteError"] | null;
            discovery_warnings?: string[];
            /** @description Present only when non-empty: type errors that did not stop the run (severity warning; with typecheck: on only errors against svc's declarations block), or why the program ran unchecked. At most 20. */
            warnings?: {
                /** @enum {string} */
                severity: "error" | "warning";
                line: number;
                column: number;
                message: string;
                notes?: {
                    line: number;
                    column: number;
                    message: string;
                }[];
                /** @description A suggested fix (the type checker's spelling suggestion) */
                help?: string;
            }[];
        };
        ExecuteError: {
            /** @enum {string} */
            kind: "runtime_error" | "permission_denied" | "fuel_exhausted" | "timeout" | "memory_exhausted" | "stack_exhausted" | "cancelled" | "compile_error" | "package_resolution" | "blueprint_not_found" | "invalid_request";
            message: string;
            caller?: string;
            capability?: string;
            /** @description permission_denied only: policy, invariant or read_only */
            source?: string;
            diagnostics?: {
                /** @enum {string} */
                severity: "error" | "warning";
                line: number;
                column: number;
                message: string;
                notes?: {
                    line: number;
                    column: number;
                    message: string;
                }[];
                /** @description A suggested fix (the type checker's spelling suggestion) */
                help?: string;
            }[];
        };
        RunStarted: {
            execution_id: string;
            session_id: string;
            /** @enum {string} */
            state: "queued" | "running" | "waiting_for_approval" | "finished";
        };
        OneOffExecuteRequest: {
            code: string;
            blueprint: string;
            variables?: {
                [key: string]: string;
            };
            secrets?: {
                [key: string]: string;
            };
        };
        SessionList: {
            sessions: components["schemas"]["SessionSummary"][];
            /** @description Sessions one token may have open at once */
            max_sessions_per_token: number;
        };
        SessionSummary: {
            session_id: string;
            blueprint: string;
            /** @description Name of the token that opened it (null: a session recorded before owners existed) */
            owner: string | null;
            /** @description Opened through the MCP endpoint */
            mcp: boolean;
            created_at_ms: number;
            last_activity_ms: number;
            idle_timeout_secs: number;
            runs_in_flight: number;
        };
        SessionCreated: {
            session_id: string;
        };
        SessionError: {
            error: string;
            message?: string;
            name?: string;
            session_id?: string;
            required?: string[];
            limit?: number;
        } & {
            [key: string]: unknown;
        };
        CreateSessionRequest: {
            blueprint: string;
            variables?: {
                [key: string]: string;
            };
            secrets?: {
                [key: string]: string;
            };
        };
        IdempotencyRefusal: {
            execution_id?: string;
            error: string;
            session_id: string;
            detail: string;
        };
        ExecuteInSessionRequest: {
            code: string;
        };
        RebindRequest: {
            secrets: {
                [key: string]: string;
            };
        };
        LastRunRecord: {
            result: string | null;
            console: string[];
            error: components["schemas"]["ExecuteError"] | null;
            /** @description Present only when non-empty: type errors that did not stop the run (severity warning; with typecheck: on only errors against svc's declarations block), or why the program ran unchecked. At most 20. */
            warnings?: {
                /** @enum {string} */
                severity: "error" | "warning";
                line: number;
                column: number;
                message: string;
                notes?: {
                    line: number;
                    column: number;
                    message: string;
                }[];
                /** @description A suggested fix (the type checker's spelling suggestion) */
                help?: string;
            }[];
        };
        RunRecord: {
            execution_id: string;
            session_id: string;
            blueprint: string;
            /**
             * @description `rest` (POST /v1/execute), `session` (POST /v1/sessions/{id}/execute) or `mcp` (the MCP execute tool)
             * @enum {string}
             */
            entry_point: "rest" | "session" | "mcp";
            /** @enum {string} */
            state: "queued" | "running" | "waiting_for_approval" | "finished";
            /** @description RFC 3339 UTC time the run was accepted */
            started_at: string;
            /** @description RFC 3339 UTC time it finished; null until then */
            finished_at: string | null;
            /** @description The execute result body once finished (ExecuteResult), else null */
            result: {
                [key: string]: unknown;
            } | null;
        };
        RunList: {
            /** @description Newest first */
            runs: components["schemas"]["RunSummary"][];
        };
        RunSummary: {
            execution_id: string;
            session_id: string;
            blueprint: string;
            /**
             * @description `rest` (POST /v1/execute), `session` (POST /v1/sessions/{id}/execute) or `mcp` (the MCP execute tool)
             * @enum {string}
             */
            entry_point: "rest" | "session" | "mcp";
            /** @enum {string} */
            state: "queued" | "running" | "waiting_for_approval" | "finished";
            /** @description RFC 3339 UTC time the run was accepted */
            started_at: string;
            /** @description RFC 3339 UTC time it finished; null until then */
            finished_at: string | null;
        };
        Tape: {
            /** @enum {string} */
            format: "svc.tape/1";
            execution_id: string;
            program: string;
            journal: ({
                step: number;
                kind: string;
            } & {
                [key: string]: unknown;
            })[];
        } & {
            [key: string]: unknown;
        };
        ForkRequest: {
            step: number;
            answer: {
                value?: unknown;
            } | {
                error: {
                    name: string;
                    message: string;
                };
            };
        };
        ApprovalList: {
            approvals: components["schemas"]["Approval"][];
        };
        Approval: {
            approval_id: string;
            execution_id: string;
            session_id: string;
            blueprint: string;
            /** @description The token the run belongs to */
            token_name: string;
            /** @description `main` or the Package whose code made the call */
            caller: string;
            capability: string;
            /** @description The call's filter context, as the policy saw it */
            context: {
                [key: string]: unknown;
            };
            /** @description Program line of the call, when known */
            line: number | null;
            /** @enum {string} */
            state: "pending" | "approved" | "denied" | "expired";
            created_at: string;
            /** @description created_at plus the Blueprint's approval_timeout */
            expires_at: string;
            decided_at: string | null;
            /** @description Token name of whoever answered */
            decided_by: string | null;
            reason: string | null;
            /**
             * @description `run`: later calls of the same capability and context in the run pass without asking
             * @enum {string}
             */
            scope: "call" | "run";
        };
        ApprovalDecided: {
            /** @enum {string} */
            error: "approval_decided";
            /** @enum {string} */
            state: "pending" | "approved" | "denied" | "expired";
            message: string;
        };
        ApprovalDecisionRequest: {
            /** @enum {string} */
            decision: "approve" | "deny";
            /** @description At most 1000 characters; a denial's reason reaches the program */
            reason?: string;
            /**
             * @description `call` (default) or `run`
             * @enum {string}
             */
            scope?: "call" | "run";
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getV1Status: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Running */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Status"];
                };
            };
            /** @description Missing or unknown token */
            401: {
                headers: {
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A `user` token on an admin route */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Storage unavailable */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The server is shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
    postV1Shutdown: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The drain starts after this response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ShutdownAccepted"];
                };
            };
            /** @description Missing or unknown token */
            401: {
                headers: {
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A `user` token on an admin route */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The server is shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
    getV1Volumes: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Sorted names */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VolumeList"];
                };
            };
            /** @description Missing or unknown token */
            401: {
                headers: {
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A `user` token on an admin route */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The server is shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
    getV1BlueprintsBy_namePrompt: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Prompt */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Prompt"];
                };
            };
            /** @description Missing or unknown token */
            401: {
                headers: {
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Blueprint not registered (`not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DiscoveryError"];
                };
            };
            /** @description The server is shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
    getV1BlueprintsBy_namePackagesSearch: {
        parameters: {
            query?: {
                /** @description Substring of names, descriptions and exported symbols; empty lists everything */
                q?: string;
            };
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Hits, or the catalogue when nothing matched */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PackageSearchResults"];
                };
            };
            /** @description Missing or unknown token */
            401: {
                headers: {
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Blueprint not registered (`not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DiscoveryError"];
                };
            };
            /** @description The server is shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
    getV1BlueprintsBy_namePackagesDocs: {
        parameters: {
            query: {
                /** @description Module, Package or built-in name */
                name: string;
            };
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description JSON for a standard-library module or built-in; Markdown (documentation, then declarations) for an installed or @mcp/ Package */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PackageDocs"];
                    "text/markdown": string;
                };
            };
            /** @description Required query parameter missing */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description Missing or unknown token */
            401: {
                headers: {
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`, `unknown_package` (with `did_you_mean`) or `unknown_mcp_server` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DiscoveryError"];
                };
            };
            /** @description The server is shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
    getV1BlueprintsBy_nameBuiltins: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Namespaces and types */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BuiltinsList"];
                };
            };
            /** @description Missing or unknown token */
            401: {
                headers: {
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Blueprint not registered (`not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DiscoveryError"];
                };
            };
            /** @description The server is shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
    getV1BlueprintsBy_nameBuiltinsDocs: {
        parameters: {
            query: {
                /** @description A built-in, e.g. `Math.max`; repeat for several */
                name: string[];
            };
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One entry per name, in request order */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BuiltinsDocs"];
                };
            };
            /** @description Required query parameter missing */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description Missing or unknown token */
            401: {
                headers: {
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Blueprint not registered (`not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DiscoveryError"];
                };
            };
            /** @description The server is shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
    getV1Blueprints: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Summaries, sorted by name */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BlueprintList"];
                };
            };
            /** @description Missing or unknown token */
            401: {
                headers: {
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A `user` token on an admin route */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The server is shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
    postV1Blueprints: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BlueprintDocument"];
            };
        };
        responses: {
            /** @description Registered */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BlueprintRegistered"];
                };
            };
            /** @description Invalid document or refused registration */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BlueprintError"];
                    "text/plain": string;
                };
            };
            /** @description Missing or unknown token */
            401: {
                headers: {
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A `user` token on an admin route */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `already_exists` */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BlueprintError"];
                };
            };
            /** @description Body over 2 MiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description `Content-Type: application/json` absent */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description JSON of the wrong shape; the message names the field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description Store unavailable */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The server is shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
    getV1BlueprintsBy_name: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Stored document */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BlueprintStored"];
                };
            };
            /** @description Missing or unknown token */
            401: {
                headers: {
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A `user` token on an admin route */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BlueprintError"];
                };
            };
            /** @description The server is shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
    putV1BlueprintsBy_name: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BlueprintDocument"];
            };
        };
        responses: {
            /** @description Created or replaced */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BlueprintReplaced"];
                };
            };
            /** @description Invalid document, refused registration or `name_mismatch` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BlueprintError"];
                    "text/plain": string;
                };
            };
            /** @description Missing or unknown token */
            401: {
                headers: {
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A `user` token on an admin route */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body over 2 MiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description `Content-Type: application/json` absent */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description JSON of the wrong shape; the message names the field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description Store unavailable */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The server is shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
    deleteV1BlueprintsBy_name: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BlueprintName"];
                };
            };
            /** @description Missing or unknown token */
            401: {
                headers: {
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A `user` token on an admin route */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BlueprintError"];
                };
            };
            /** @description Store unavailable */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The server is shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
    getV1Capabilities: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Grouped by module */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Capabilities"];
                };
            };
            /** @description Missing or unknown token */
            401: {
                headers: {
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A `user` token on an admin route */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The server is shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
    getV1Secrets: {
        parameters: {
            query?: {
                /** @description Only keys starting with this */
                prefix?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Byte-sorted keys */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SecretKeys"];
                };
            };
            /** @description Missing or unknown token */
            401: {
                headers: {
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A `user` token on an admin route */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `no_secret_store` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postV1Secrets: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PutSecretRequest"];
            };
        };
        responses: {
            /** @description Stored */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SecretKey"];
                };
            };
            /** @description `invalid_key` or `invalid_value` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                    "text/plain": string;
                };
            };
            /** @description Missing or unknown token */
            401: {
                headers: {
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A `user` token on an admin route */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body over 2 MiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description `Content-Type: application/json` absent */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description JSON of the wrong shape; the message names the field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description Store failure */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `no_secret_store` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteV1SecretsBy_key: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                key: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SecretKey"];
                };
            };
            /** @description `invalid_key` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown token */
            401: {
                headers: {
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A `user` token on an admin route */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `no_secret_store` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getV1Packages: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Packages of every store root */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PackageList"];
                };
            };
            /** @description Missing or unknown token */
            401: {
                headers: {
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A `user` token on an admin route */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The server is shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
    postV1PackagesInstall: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PackageInstallRequest"];
            };
        };
        responses: {
            /** @description Installed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PackageInstalled"];
                };
            };
            /** @description Invalid request or package */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                    "text/plain": string;
                };
            };
            /** @description Missing or unknown token */
            401: {
                headers: {
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A `user` token on an admin route */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `dependency_conflict` or `already_installed` */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body over 2 MiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description `Content-Type: application/json` absent */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description JSON of the wrong shape; the message names the field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description Download failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `github_rate_limited` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteV1PackagesBy_name: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PackageRemoved"];
                };
            };
            /** @description `invalid_name` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown token */
            401: {
                headers: {
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A `user` token on an admin route */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_managed` */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The server is shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
    getV1McpBy_blueprintAuthStatus: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                blueprint: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description State */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthStatus"];
                };
            };
            /** @description Missing or unknown token */
            401: {
                headers: {
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A `user` token on an admin route */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unknown_blueprint` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The server is shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
    getV1McpBy_blueprintBy_serverAuthConfig: {
        parameters: {
            query?: {
                /** @description Enables dynamic client registration */
                redirect_uri?: string;
            };
            header?: never;
            path: {
                blueprint: string;
                server: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Metadata, never a secret */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthConfig"];
                };
            };
            /** @description Not an OAuth server */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown token */
            401: {
                headers: {
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A `user` token on an admin route */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unknown Blueprint or server */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Discovery failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The server is shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
    postV1McpBy_blueprintBy_serverRefreshToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                blueprint: string;
                server: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RefreshTokenRequest"];
            };
        };
        responses: {
            /** @description Stored */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthState"];
                };
            };
            /** @description Invalid credential */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                    "text/plain": string;
                };
            };
            /** @description Missing or unknown token */
            401: {
                headers: {
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A `user` token on an admin route */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unknown Blueprint or server */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body over 2 MiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description `Content-Type: application/json` absent */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description JSON of the wrong shape; the message names the field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description `no_secret_store` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteV1McpBy_blueprintBy_serverRefreshToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                blueprint: string;
                server: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthState"];
                };
            };
            /** @description Missing or unknown token */
            401: {
                headers: {
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A `user` token on an admin route */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Nothing stored, or unknown Blueprint or server */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The server is shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
    postV1McpBy_blueprintBy_serverOauthExchange: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                blueprint: string;
                server: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OAuthExchangeRequest"];
            };
        };
        responses: {
            /** @description Exchanged and stored */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthState"];
                };
            };
            /** @description Invalid request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                    "text/plain": string;
                };
            };
            /** @description Missing or unknown token */
            401: {
                headers: {
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A `user` token on an admin route */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unknown Blueprint or server */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body over 2 MiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description `Content-Type: application/json` absent */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description JSON of the wrong shape; the message names the field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description `exchange_failed` */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The server is shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
    postV1Execute: {
        parameters: {
            query?: never;
            header?: {
                /** @description `respond-async`: answer 202 `{execution_id, session_id, state}` with `Location: /v1/runs/<id>` once the run is admitted; the run then goes on whether or not the client stays */
                Prefer?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OneOffExecuteRequest"];
            };
        };
        responses: {
            /** @description Every outcome, including `blueprint_not_found` and `invalid_request` */
            200: {
                headers: {
                    /** @description The session the request ran in */
                    "mcp-session-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExecuteResult"];
                };
            };
            /** @description With `Prefer: respond-async`: the run was admitted; `Location: /v1/runs/<execution_id>` follows it */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunStarted"];
                };
            };
            /** @description Body is not JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description Missing or unknown token */
            401: {
                headers: {
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body over 2 MiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description `Content-Type: application/json` absent */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description JSON of the wrong shape; the message names the field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description The server is shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
    getV1Sessions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Oldest first, with the per-token limit */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionList"];
                };
            };
            /** @description Missing or unknown token */
            401: {
                headers: {
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The server is shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
    postV1Sessions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateSessionRequest"];
            };
        };
        responses: {
            /** @description Opened */
            200: {
                headers: {
                    /** @description The session the request ran in */
                    "mcp-session-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionCreated"];
                };
            };
            /** @description Invalid variables, secrets or filled paths */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionError"];
                    "text/plain": string;
                };
            };
            /** @description Missing or unknown token */
            401: {
                headers: {
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unknown Blueprint */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionError"];
                };
            };
            /** @description Body over 2 MiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description `Content-Type: application/json` absent */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description JSON of the wrong shape; the message names the field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description `session_limit`: the token has `max_sessions_per_token` sessions open */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionError"];
                };
            };
            /** @description The session could not be created */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionError"];
                };
            };
            /** @description The server is shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
    postV1SessionsBy_session_idExecute: {
        parameters: {
            query?: never;
            header?: {
                /** @description Printable ASCII, 1 to 120 bytes, sent once: the same key with the same code replays the recorded outcome (of an asynchronous start: its 202 with the same execution_id) */
                "Idempotency-Key"?: string;
                /** @description `respond-async`: answer 202 `{execution_id, session_id, state}` with `Location: /v1/runs/<id>` once the run is admitted; the run then goes on whether or not the client stays */
                Prefer?: string;
            };
            path: {
                session_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ExecuteInSessionRequest"];
            };
        };
        responses: {
            /** @description Every program outcome, failures included */
            200: {
                headers: {
                    /** @description The session the request ran in */
                    "mcp-session-id"?: string;
                    /** @description `true` when the answer was replayed from an earlier request with the same Idempotency-Key (nothing ran, no audit records); absent for a run */
                    "Idempotent-Replayed"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExecuteResult"];
                };
            };
            /** @description With `Prefer: respond-async`: the run was admitted; `Location: /v1/runs/<execution_id>` follows it */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunStarted"];
                };
            };
            /** @description Invalid Idempotency-Key */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IdempotencyRefusal"];
                    "text/plain": string;
                };
            };
            /** @description Missing or unknown token */
            401: {
                headers: {
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unknown session, or its Blueprint is gone */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionError"];
                };
            };
            /** @description `session_requires_secrets`, `idempotency_conflict` or `idempotency_incomplete` */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionError"];
                };
            };
            /** @description Body over 2 MiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description `Content-Type: application/json` absent */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description JSON of the wrong shape; the message names the field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description `idempotency_in_progress` or `idempotency_unavailable` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IdempotencyRefusal"];
                };
            };
        };
    };
    postV1SessionsBy_session_idRebind: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                session_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RebindRequest"];
            };
        };
        responses: {
            /** @description Rebound */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid secrets */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionError"];
                    "text/plain": string;
                };
            };
            /** @description Missing or unknown token */
            401: {
                headers: {
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unknown session, or its Blueprint is gone */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionError"];
                };
            };
            /** @description Body over 2 MiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description `Content-Type: application/json` absent */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description JSON of the wrong shape; the message names the field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description The server is shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
    getV1SessionsBy_session_idLastRun: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The last run */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LastRunRecord"];
                };
            };
            /** @description Missing or unknown token */
            401: {
                headers: {
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No run recorded */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The server is shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
    deleteV1SessionsBy_session_id: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ended */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing or unknown token */
            401: {
                headers: {
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unknown session */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The server is shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
    getV1RunsBy_execution_id: {
        parameters: {
            query?: {
                /** @description Seconds (0-60) to hold the answer until the run is finished; the record as it is then */
                wait?: string;
            };
            header?: never;
            path: {
                execution_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The run record */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunRecord"];
                };
            };
            /** @description `invalid_query`: the message names the parameter and what it accepts */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown token */
            401: {
                headers: {
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unknown_run`: no such run, its record has expired, or it is another token's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The server is shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
    getV1Runs: {
        parameters: {
            query?: {
                state?: "queued" | "running" | "waiting_for_approval" | "finished";
                session_id?: string;
                blueprint?: string;
                /** @description At most this many (1-500, default 50) */
                limit?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Records without their results */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunList"];
                };
            };
            /** @description `invalid_query`: the message names the parameter and what it accepts */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown token */
            401: {
                headers: {
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The server is shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
    postV1RunsBy_execution_idCancel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                execution_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Cancellation asked; the record as it was (GET it, with `wait`, for the end) */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunRecord"];
                };
            };
            /** @description Missing or unknown token */
            401: {
                headers: {
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unknown_run`: no such run, its record has expired, or it is another token's */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `run_finished`: the run had already finished */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The server is shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
    getV1RunsBy_execution_idTape: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                execution_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The tape */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Tape"];
                };
            };
            /** @description Missing or unknown token */
            401: {
                headers: {
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unknown_run` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `run_not_finished` */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The server is shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
    postV1RunsBy_execution_idFork: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                execution_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ForkRequest"];
            };
        };
        responses: {
            /** @description The new run, under way */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunStarted"];
                };
            };
            /** @description `invalid_step`, `not_replayable` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                    "text/plain": string;
                };
            };
            /** @description Missing or unknown token */
            401: {
                headers: {
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unknown_run`, `blueprint_not_found` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `run_not_finished` */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Body over 2 MiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description `Content-Type: application/json` absent */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description JSON of the wrong shape; the message names the field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description The server is shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
    getV1Approvals: {
        parameters: {
            query?: {
                /** @description One of pending, approved, denied, expired (default pending) */
                state?: string;
                blueprint?: string;
                session_id?: string;
                execution_id?: string;
                /** @description 1 to 500 (default 500) */
                limit?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Newest first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalList"];
                };
            };
            /** @description `invalid_request`: a query parameter names what it accepts */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or unknown token */
            401: {
                headers: {
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A `user` token on an admin route */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The server is shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
    getV1ApprovalsBy_approval_id: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                approval_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The approval */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Approval"];
                };
            };
            /** @description Missing or unknown token */
            401: {
                headers: {
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A `user` token on an admin route */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unknown_approval` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The server is shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
    postV1ApprovalsBy_approval_id: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                approval_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ApprovalDecisionRequest"];
            };
        };
        responses: {
            /** @description Settled: the waiting call goes on (approve) or fails with PermissionDeniedError, source `human` (deny) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Approval"];
                };
            };
            /** @description Body is not JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description Missing or unknown token */
            401: {
                headers: {
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A `user` token on an admin route */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unknown_approval` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Already answered or expired */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalDecided"];
                };
            };
            /** @description Body over 2 MiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description `Content-Type: application/json` absent */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description JSON of the wrong shape; the message names the field */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description The server is shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
    getV1OpenapiJson: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The OpenAPI 3.1 document of the routes this server serves */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            /** @description Missing or unknown token */
            401: {
                headers: {
                    "WWW-Authenticate"?: "Bearer";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The server is shutting down */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
}
