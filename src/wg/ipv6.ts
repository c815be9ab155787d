// Moved to src/net/ipv6.ts (the one address library); this re-export keeps the kernel lane's
// imports (src/wg/, src/nft/) working until they import src/net/ themselves. Remove it then.
export * from '../net/ipv6';
