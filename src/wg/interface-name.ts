// The one rule for an interface name, shared by the API, import, the link code and the
// packet filter's element text: what Linux takes (at most 15 bytes, IFNAMSIZ - 1) narrowed to
// characters safe in `ip`, `wg` and nft arguments, never starting with "." or "-".
export const INTERFACE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,14}$/;

/** The rule in words, for a refusal. */
export const INTERFACE_NAME_RULE = 'an interface name of 1 to 15 letters, digits, "_", "." or "-", starting with a letter, digit or "_"';

export const isInterfaceName = (name: string): boolean => INTERFACE_NAME.test(name);
