/**
 * A client of one part of the API: what it sends its requests through (the transport, the taxonomy's caller), held
 * in a private field and reached by the client's own methods alone.
 */
export abstract class ClientOf<T> {
  readonly #via: T;

  constructor(via: T) {
    this.#via = via;
  }

  /** What the client sends its requests through. */
  protected get via(): T {
    return this.#via;
  }
}
