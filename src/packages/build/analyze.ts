// What a Package's sources declare and use, read with the TypeScript checker: its exports,
// their doc comments and `@capability` tags, the `check(...)` calls that enforce them, and
// the standard-library calls its own code makes, with the build's diagnostics about them.
import type TypeScript from 'typescript';
import type { CapabilityFile, ProvidedCapability, ProvidedField, RequiredCapability } from '../capabilities';
import type { BuildDiagnostic } from './diagnostics';
import type { PackageProgram } from './program';
import { stdlibCapability, urlFilter } from './requirements';
import { parseCapabilityTag, type CapabilityTag, type FieldType } from './tags';

type Ts = typeof TypeScript;

export interface Analysis {
  exports: { values: string[]; types: string[] };
  provides: ProvidedCapability[];
  requires: RequiredCapability[];
  errors: BuildDiagnostic[];
  warnings: BuildDiagnostic[];
}

const KNOWN_TAGS = new Set(['param', 'returns', 'return', 'capability', 'example', 'throws', 'deprecated', 'see', 'remarks', 'since', 'typeParam', 'template', 'link', 'default', 'defaultValue']);
const STDLIB_CHECK = /^(fs|git|http|session|llm|embedding)\./;

type ImportBinding = { module: string; export: string } | { module: string; namespace: true };

interface Static {
  text: string;
  complete: boolean;
}

export function analyzePackage(unit: PackageProgram, dependencies: ReadonlyMap<string, CapabilityFile>): Analysis {
  const { ts, checker, entry } = unit;
  const errors: BuildDiagnostic[] = [];
  const warnings: BuildDiagnostic[] = [];
  const at = (node: TypeScript.Node, severity: 'error' | 'warning', message: string) => {
    const source = node.getSourceFile();
    const { line, character } = source.getLineAndCharacterOfPosition(node.getStart());
    (severity === 'error' ? errors : warnings).push({ severity, file: unit.displayName(source.fileName), line: line + 1, column: character + 1, message });
  };

  const binding = (node: TypeScript.Node): ImportBinding | null => {
    const symbol = checker.getSymbolAtLocation(node);
    const declaration = symbol?.declarations?.[0];
    if (!declaration) return null;
    if (ts.isImportSpecifier(declaration)) {
      const module = (declaration.parent.parent.parent.moduleSpecifier as TypeScript.StringLiteral).text;
      return { module, export: (declaration.propertyName ?? declaration.name).text };
    }
    if (ts.isNamespaceImport(declaration)) return { module: (declaration.parent.parent.moduleSpecifier as TypeScript.StringLiteral).text, namespace: true };
    if (ts.isImportClause(declaration)) return { module: (declaration.parent.moduleSpecifier as TypeScript.StringLiteral).text, namespace: true };
    return null;
  };
  /** `[module, export]` of a called import (`check(...)`, `http.get(...)`), or null. */
  const calledImport = (call: TypeScript.CallExpression): [string, string] | null => {
    const callee = call.expression;
    if (ts.isIdentifier(callee)) {
      const b = binding(callee);
      return b && 'export' in b ? [b.module, b.export] : null;
    }
    if (ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression)) {
      const b = binding(callee.expression);
      return b && 'namespace' in b ? [b.module, callee.name.text] : null;
    }
    return null;
  };

  const staticText = (expression: TypeScript.Expression, depth = 0): Static | null => {
    if (depth > 20) return null;
    if (ts.isStringLiteral(expression) || ts.isNoSubstitutionTemplateLiteral(expression)) return { text: expression.text, complete: true };
    if (ts.isParenthesizedExpression(expression)) return staticText(expression.expression, depth + 1);
    if (ts.isIdentifier(expression)) {
      const declaration = checker.getSymbolAtLocation(expression)?.declarations?.[0];
      if (declaration && ts.isVariableDeclaration(declaration) && declaration.initializer && ts.getCombinedNodeFlags(declaration) & ts.NodeFlags.Const) {
        return staticText(declaration.initializer, depth + 1);
      }
      return null;
    }
    if (ts.isBinaryExpression(expression) && expression.operatorToken.kind === ts.SyntaxKind.PlusToken) {
      const left = staticText(expression.left, depth + 1);
      if (!left || !left.complete) return left;
      const right = staticText(expression.right, depth + 1);
      return right ? { text: left.text + right.text, complete: right.complete } : { text: left.text, complete: false };
    }
    if (ts.isTemplateExpression(expression)) {
      let text = expression.head.text;
      for (const span of expression.templateSpans) {
        const value = staticText(span.expression, depth + 1);
        if (!value) return { text, complete: false };
        text += value.text;
        if (!value.complete) return { text, complete: false };
        text += span.literal.text;
      }
      return { text, complete: true };
    }
    return null;
  };

  const enclosingFunction = (node: TypeScript.Node): TypeScript.SignatureDeclaration | null => {
    for (let current = node.parent; current; current = current.parent) if (ts.isFunctionLike(current)) return current;
    return null;
  };
  const isParameterOf = (identifier: TypeScript.Identifier): boolean => {
    const declaration = checker.getSymbolAtLocation(identifier)?.declarations?.[0];
    return !!declaration && ts.isParameter(declaration);
  };
  const referencesParameter = (node: TypeScript.Node): boolean => {
    let found = false;
    const visit = (n: TypeScript.Node) => {
      if (found) return;
      if (ts.isIdentifier(n) && isParameterOf(n)) found = true;
      else if (ts.isIdentifier(n)) {
        // Through a local const initialised from a parameter.
        const declaration = checker.getSymbolAtLocation(n)?.declarations?.[0];
        if (declaration && ts.isVariableDeclaration(declaration) && declaration.initializer && enclosingFunction(declaration) && referencesParameter(declaration.initializer)) found = true;
      } else ts.forEachChild(n, visit);
    };
    visit(node);
    return found;
  };

  const fieldType = (type: TypeScript.Type): FieldType => {
    const t = checker.getNonNullableType(type);
    if (t.flags & ts.TypeFlags.StringLike) return 'string';
    if (t.flags & ts.TypeFlags.NumberLike) return 'number';
    if (t.flags & ts.TypeFlags.BooleanLike) return 'boolean';
    if (t.isUnion()) {
      const kinds = new Set(t.types.map(fieldType));
      if (kinds.size === 1) return [...kinds][0];
    }
    if (checker.isArrayType(t)) {
      const element = fieldType(checker.getTypeArguments(t as TypeScript.TypeReference)[0]);
      if (element === 'string') return 'string[]';
      if (element === 'number') return 'number[]';
    }
    return 'object';
  };

  // Exports of src/lib.ts.
  const exportsOut = { values: [] as string[], types: [] as string[] };
  const exportedFunctions: Array<{ name: string; declaration: TypeScript.FunctionDeclaration }> = [];
  const moduleSymbol = checker.getSymbolAtLocation(entry);
  for (const exported of moduleSymbol ? checker.getExportsOfModule(moduleSymbol) : []) {
    const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    const declaration = symbol.declarations?.[0];
    if (!declaration) continue;
    const name = exported.name;
    if (symbol.flags & ts.SymbolFlags.Value) exportsOut.values.push(name);
    else exportsOut.types.push(name);
    if (documentation(ts, declaration) === null) at(declaration, 'warning', `export \`${name}\` has no doc comment; document it for the agent`);
    if (ts.isFunctionDeclaration(declaration)) exportedFunctions.push({ name, declaration });
  }
  exportsOut.values.sort();
  exportsOut.types.sort();

  // Capabilities per exported function, and the checks that enforce them.
  const provides = new Map<string, ProvidedCapability>();
  const addProvided = (name: string, description: string | undefined, fields: Record<string, ProvidedField>) => {
    const existing = provides.get(name);
    if (!existing) {
      provides.set(name, { name, ...(description ? { description } : {}), fields: { ...fields } });
      return;
    }
    for (const [field, info] of Object.entries(fields)) existing.fields[field] ??= info;
  };
  const seenImplementations = new Set<TypeScript.Node>();
  for (const { name, declaration } of exportedFunctions) {
    if (!declaration.body || seenImplementations.has(declaration)) continue;
    seenImplementations.add(declaration);
    const doc = documentation(ts, declaration);
    const params = declaration.parameters.map((p) => (ts.isIdentifier(p.name) ? p.name.text : ''));
    const paramDocs = new Map<string, string>();
    const paramTagOrder: string[] = [];
    const tags: Array<{ tag: CapabilityTag; node: TypeScript.Node }> = [];
    let hasReturns = false;
    for (const tag of doc?.tags ?? []) {
      const tagName = tag.tagName.text;
      const comment = (ts.getTextOfJSDocComment(tag.comment) ?? '').trim();
      if (ts.isJSDocParameterTag(tag)) {
        const paramName = ts.isIdentifier(tag.name) ? tag.name.text : tag.name.getText();
        paramTagOrder.push(paramName);
        paramDocs.set(paramName, comment.replace(/^-\s*/, ''));
      } else if (tagName === 'returns' || tagName === 'return') hasReturns = true;
      else if (tagName === 'capability') {
        const parsed = parseCapabilityTag(comment);
        if (typeof parsed === 'string') at(tag, 'warning', parsed);
        else tags.push({ tag: parsed, node: tag });
      } else if (!KNOWN_TAGS.has(tagName)) at(tag, 'warning', `unknown doc tag \`@${tagName}\` on \`${name}\``);
    }
    if (doc) {
      for (const p of params) if (p && !paramTagOrder.includes(p)) at(declaration, 'warning', `\`${name}\`: parameter \`${p}\` has no @param`);
      for (const p of paramTagOrder) if (!params.includes(p)) at(declaration, 'warning', `\`${name}\`: @param \`${p}\` names no parameter`);
      const documented = params.filter((p) => paramTagOrder.includes(p));
      const order = paramTagOrder.filter((p) => params.includes(p));
      if (documented.join(',') !== order.join(',')) at(declaration, 'warning', `\`${name}\`: @param tags are out of order; write them in parameter order (${documented.join(', ')})`);
      const signature = checker.getSignatureFromDeclaration(declaration);
      if (signature && !hasReturns && !isVoidLike(ts, checker, checker.getReturnTypeOfSignature(signature))) at(declaration, 'warning', `\`${name}\`: add @returns (the function returns a value)`);
    }

    // Checks in this function's body.
    const checks: Array<{ call: TypeScript.CallExpression; capability: string }> = [];
    const visit = (node: TypeScript.Node) => {
      if (ts.isCallExpression(node)) {
        const target = calledImport(node);
        if (target && target[0] === 'svc:security' && target[1] === 'check') {
          const first = node.arguments[0];
          const literal = first ? staticText(first) : null;
          if (!literal || !literal.complete) at(node, 'error', '`check` needs a literal capability name (a string literal or a top-level const string)');
          else {
            if (enclosingFunction(node) !== declaration) at(node, 'warning', `\`check("${literal.text}")\` inside a nested function; call check directly in the body of \`${name}\`, before the effect`);
            checks.push({ call: node, capability: literal.text });
          }
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(declaration.body);

    for (const { tag, node } of tags) {
      for (const b of tag.bindings) {
        if (b.kind !== 'param') continue;
        const index = params.indexOf(b.param);
        if (index < 0) {
          at(node, 'warning', `@capability ${tag.name}: \`$${b.param}\` names no parameter of \`${name}\``);
          continue;
        }
        let type = checker.getNonNullableType(checker.getTypeAtLocation(declaration.parameters[index]));
        for (const segment of b.path) {
          const property = type.getProperty(segment);
          if (!property) {
            at(node, 'warning', `@capability ${tag.name}: \`$${[b.param, ...b.path].join('.')}\` is not a property path of parameter \`${b.param}\``);
            break;
          }
          type = checker.getNonNullableType(checker.getTypeOfSymbolAtLocation(property, declaration));
        }
      }
      if (!checks.some((c) => c.capability === tag.name)) at(node, 'warning', `@capability ${tag.name} on \`${name}\` has no \`check("${tag.name}", …)\` in its body`);
      const fields: Record<string, ProvidedField> = {};
      for (const b of tag.bindings) {
        if (b.kind === 'param') {
          const index = params.indexOf(b.param);
          let type: FieldType = 'object';
          if (index >= 0) {
            let t = checker.getTypeAtLocation(declaration.parameters[index]);
            for (const segment of b.path) {
              const property = checker.getNonNullableType(t).getProperty(segment);
              if (!property) break;
              t = checker.getTypeOfSymbolAtLocation(property, declaration);
            }
            type = fieldType(t);
          }
          const description = b.path.length === 0 ? paramDocs.get(b.param) : undefined;
          fields[b.field] = { type, ...(description ? { description } : {}) };
        } else fields[b.field] = { type: b.type };
      }
      const summary = doc ? (ts.getTextOfJSDocComment(doc.comment) ?? '').trim().split(/\n\s*\n/)[0].replace(/\s+/g, ' ') : '';
      addProvided(tag.name, summary || tag.description || undefined, fields);
    }

    for (const { call, capability } of checks) {
      const tag = tags.find((t) => t.tag.name === capability)?.tag;
      const payload = call.arguments[1];
      const keys: Array<{ key: string; node: TypeScript.Node; value: TypeScript.Node }> = [];
      let literalPayload = false;
      if (payload && ts.isObjectLiteralExpression(payload)) {
        literalPayload = true;
        for (const property of payload.properties) {
          if (ts.isShorthandPropertyAssignment(property)) keys.push({ key: property.name.text, node: property, value: property.name });
          else if (ts.isPropertyAssignment(property) && (ts.isIdentifier(property.name) || ts.isStringLiteral(property.name))) keys.push({ key: property.name.text, node: property, value: property.initializer });
        }
      }
      if (tag) {
        for (const { key, node } of keys) {
          if (!tag.bindings.some((b) => b.field === key)) at(node, 'error', `check("${capability}") sends \`${key}\`, which the @capability tag does not declare; add it to the tag's bindings`);
        }
        if (literalPayload) {
          for (const b of tag.bindings) if (!keys.some((k) => k.key === b.field)) at(call, 'warning', `check("${capability}") does not send \`${b.field}\`, which the @capability tag declares`);
        }
      } else if (STDLIB_CHECK.test(capability)) {
        const fields: Record<string, ProvidedField> = {};
        for (const { key, value } of keys) fields[key] = { type: fieldType(checker.getTypeAtLocation(value)) };
        addProvided(capability, undefined, fields);
      } else at(call, 'warning', `check("${capability}") in \`${name}\` has no matching @capability tag; declare it in the doc comment`);

      // Read each input once: a parameter object read again after the check may have changed.
      const checkedParams = new Set<string>();
      const collect = (n: TypeScript.Node) => {
        if ((ts.isPropertyAccessExpression(n) || ts.isElementAccessExpression(n)) && ts.isIdentifier(n.expression) && isParameterOf(n.expression)) checkedParams.add(n.expression.text);
        ts.forEachChild(n, collect);
      };
      if (payload) collect(payload);
      if (checkedParams.size === 0) continue;
      const reported = new Set<string>();
      const after = (n: TypeScript.Node) => {
        if (n.getStart() >= call.getEnd() && (ts.isPropertyAccessExpression(n) || ts.isElementAccessExpression(n)) && ts.isIdentifier(n.expression) && checkedParams.has(n.expression.text) && !reported.has(n.expression.text)) {
          reported.add(n.expression.text);
          at(n, 'warning', `\`${n.getText()}\` re-reads \`${n.expression.text}\` after it reached check("${capability}"); read it once into a local before the check and use that`);
        }
        ts.forEachChild(n, after);
      };
      after(declaration.body);
    }
  }

  // check() calls outside exported functions, and the standard-library calls of all code.
  const requires = new Map<string, RequiredCapability>();
  const addRequirement = (capability: string, filter?: string) => {
    const key = `${capability}\u0000${filter ?? ''}`;
    if (!requires.has(key)) requires.set(key, { capability, ...(filter ? { filter } : {}) });
  };
  const usedDependencies = new Set<string>();
  const exportedBodies = new Set(exportedFunctions.map((f) => f.declaration));
  for (const source of unit.sources) {
    for (const statement of source.statements) {
      if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier) && dependencies.has(statement.moduleSpecifier.text)) usedDependencies.add(statement.moduleSpecifier.text);
    }
    const visit = (node: TypeScript.Node) => {
      if (ts.isCallExpression(node)) {
        const target = calledImport(node);
        if (target && target[0] === 'svc:security' && target[1] === 'check') {
          let owner: TypeScript.Node | null = enclosingFunction(node);
          while (owner && !exportedBodies.has(owner as TypeScript.FunctionDeclaration)) owner = enclosingFunction(owner);
          if (!owner) at(node, 'warning', '`check` outside an exported function; call it directly in the body of the exported function that performs the operation');
        } else if (target && target[0].startsWith('svc:')) requirement(node, target[0], target[1]);
      }
      ts.forEachChild(node, visit);
    };
    const requirement = (call: TypeScript.CallExpression, module: string, exported: string) => {
      const methodArg = call.arguments[0];
      const method = module === 'svc:http' && exported === 'request' && methodArg ? staticText(methodArg) : null;
      const kind = stdlibCapability(module, exported, method?.complete ? method.text : undefined);
      if (kind.capability === null) {
        if (module === 'svc:http' && exported === 'request') addRequirement('http.*');
        return;
      }
      const capability = kind.capability;
      if (capability === 'secrets.get') {
        const nameArg = call.arguments[0];
        const literal = nameArg ? staticText(nameArg) : null;
        addRequirement(capability, literal?.complete ? `name == ${JSON.stringify(literal.text)}` : undefined);
        return;
      }
      if ('url' in kind && kind.url) {
        const urlArg = call.arguments[kind.url === 'first' ? 0 : 1];
        const value = urlArg ? staticText(urlArg) : null;
        const filter = value ? urlFilter(value.text, value.complete, capability) : null;
        if (!filter && urlArg && referencesParameter(urlArg)) at(call, 'warning', `the host of this ${capability} call comes from a parameter, so no \`host\` filter can be derived; keep the base URL in a top-level const`);
        addRequirement(capability, filter ?? undefined);
        // download also writes its destination: the runtime gates fs.write under the same caller.
        if (capability === 'http.download') addRequirement('fs.write');
        return;
      }
      addRequirement(capability);
    };
    visit(source);
  }
  for (const name of usedDependencies) for (const provided of dependencies.get(name)?.provides ?? []) addRequirement(provided.name);
  const requiresList = [...requires.values()].filter((r) => r.capability !== 'http.*').sort((a, b) => (a.capability === b.capability ? (a.filter ?? '').localeCompare(b.filter ?? '') : a.capability < b.capability ? -1 : 1));
  const providesList = [...provides.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const p of providesList) p.fields = Object.fromEntries(Object.entries(p.fields).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { exports: exportsOut, provides: providesList, requires: requiresList, errors, warnings };
}

/** The last JSDoc block of a declaration (of its statement for a variable), or null. */
function documentation(ts: Ts, declaration: TypeScript.Node): TypeScript.JSDoc | null {
  const holder = ts.isVariableDeclaration(declaration) ? declaration.parent.parent : declaration;
  const docs = ((holder as unknown as { jsDoc?: TypeScript.JSDoc[] }).jsDoc ?? []).filter((d) => ts.isJSDoc(d));
  return docs.length > 0 ? docs[docs.length - 1] : null;
}

function isVoidLike(ts: Ts, checker: TypeScript.TypeChecker, type: TypeScript.Type): boolean {
  if (type.flags & (ts.TypeFlags.Void | ts.TypeFlags.Undefined | ts.TypeFlags.Never)) return true;
  const symbol = type.getSymbol();
  if (symbol?.name === 'Promise') {
    const [inner] = checker.getTypeArguments(type as TypeScript.TypeReference);
    return inner !== undefined && isVoidLike(ts, checker, inner);
  }
  return false;
}
