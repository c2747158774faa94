/** `http://user:pw@host/` → `http://…@host/`: a message never repeats a credential. */
export function withoutCredentials(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#\s]*@/iu, '$1…@');
}
