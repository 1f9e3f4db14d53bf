// Types for npm jaro-winkler (a CommonJS function export without its own declarations).
declare module "jaro-winkler" {
  /** The Jaro-Winkler similarity of two strings, in [0, 1]. */
  export default function distance(s1: string, s2: string, options?: { caseSensitive?: boolean }): number;
}
