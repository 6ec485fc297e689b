// Repository specs accepted by installs: `owner/repo`, `github.com/owner/repo`, `https://github.com/owner/repo`,
// `git@github.com:owner/repo.git`, `ssh://git@github.com/owner/repo.git`, optional `.git`,
// and a ref as `@<ref>`, `/tree/<ref>` or `/commit/<sha>`. SSH forms only name the repository.
import { PackageError } from '../errors';

export interface RepositorySpec {
  owner: string;
  repo: string;
  ref: string | null;
}

const OWNER = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/;
const REPO = /^[A-Za-z0-9._-]{1,100}$/;

const invalid = (spec: string, why: string): never => {
  throw new PackageError('invalid_url', `'${spec}' is not a repository spec: ${why}; write owner/repo, github.com/owner/repo or https://github.com/owner/repo, optionally with @<ref>`);
};

export function parseRepositorySpec(spec: string): RepositorySpec {
  const input = spec.trim();
  if (input === '') invalid(spec, 'it is empty');
  let rest = input;
  if (/^git@github\.com:/i.test(rest)) rest = rest.slice('git@github.com:'.length);
  else if (/^ssh:\/\/git@github\.com\//i.test(rest)) rest = rest.slice('ssh://git@github.com/'.length);
  else if (/^https:\/\/(www\.)?github\.com\//i.test(rest)) rest = rest.replace(/^https:\/\/(www\.)?github\.com\//i, '');
  else if (/^github\.com\//i.test(rest)) rest = rest.slice('github.com/'.length);
  else if (/^[a-z][a-z0-9+.-]*:/i.test(rest)) invalid(spec, 'only GitHub repositories are supported');
  let ref: string | null = null;
  const tree = /^([^/]+)\/([^/]+)\/(?:tree|commit)\/(.+)$/.exec(rest);
  if (tree) {
    rest = `${tree[1]}/${tree[2]}`;
    ref = tree[3];
  } else {
    const at = rest.indexOf('@');
    if (at >= 0) {
      ref = rest.slice(at + 1);
      rest = rest.slice(0, at);
      if (ref === '') invalid(spec, 'the ref after `@` is empty');
    }
  }
  rest = rest.replace(/\/+$/, '');
  const parts = rest.split('/');
  if (parts.length !== 2) invalid(spec, 'it does not name exactly one owner and one repository');
  const owner = parts[0];
  const repo = parts[1].replace(/\.git$/i, '');
  if (!OWNER.test(owner)) invalid(spec, `the owner '${owner}' is not a GitHub user or organisation name`);
  if (!REPO.test(repo) || repo === '.' || repo === '..') invalid(spec, `the repository name '${repo}' is not valid`);
  if (ref !== null && (/[\s~^:?*[\\]|\.\.|^\/|\/$/.test(ref) || ref.length > 255)) invalid(spec, `the ref '${ref}' is not a valid branch, tag or commit`);
  return { owner, repo, ref };
}
