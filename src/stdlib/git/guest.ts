// Guest side of `svc:git`: the `Repository` class over the host operations (it holds the
// repository's path, which the host checks again on every call).
import type { GuestCall, GuestPrimordials } from '../guest-contract';

export default function gitGuest(call: GuestCall, P: GuestPrimordials): object {
  class Repository {
    #path: unknown;
    constructor(path: unknown, opened?: boolean) { this.#path = opened ? path : call('open', path); }
    static open(path: unknown) { return new Repository(path); }
    static init(path: unknown, options: unknown) { return new Repository(call('init', path, options ?? null), true); }
    static clone(url: unknown, path: unknown, options: unknown) { return new Repository(call('clone', url, path, options ?? null), true); }
    get path() { return this.#path; }
    status() { return call('status', this.#path); }
    log(options: unknown) { return call('log', this.#path, options ?? null); }
    diff(options: unknown) { return call('diff', this.#path, options ?? null); }
    show(ref: unknown, path: unknown) { return call('show', this.#path, ref, path); }
    branches() { return call('branches', this.#path); }
    remotes() { return call('remotes', this.#path); }
    add(paths: unknown) { call('add', this.#path, paths); }
    commit(message: unknown) { return call('commit', this.#path, message); }
    createBranch(name: unknown, start: unknown) { call('createBranch', this.#path, name, start ?? null); }
    switchBranch(name: unknown) { call('switchBranch', this.#path, name); }
    addRemote(name: unknown, url: unknown) { call('addRemote', this.#path, name, url); }
    setRemoteUrl(name: unknown, url: unknown) { call('setRemoteUrl', this.#path, name, url); }
    fetch(remote: unknown, branch: unknown) { return call('fetch', this.#path, remote ?? null, branch ?? null); }
    pull(remote: unknown, branch: unknown) { return call('pull', this.#path, remote ?? null, branch ?? null); }
  }
  P.ObjectFreeze(Repository.prototype);
  P.ObjectFreeze(Repository);
  return { Repository };
}
