// The data limit, one rule for every place that judges it: the usage job (restrict, lift),
// an update of a peer (a raised or cleared limit lifts its reason), the store's query of
// peers over their limit, the metrics, and the API's two fields for it. A limit of 0 is no
// limit; a peer is over once its month's usage reaches the limit (equal is over).
//
// A limit is kept in GiB with at most one decimal (1.5): the page takes tenths. The
// contract's dataLimitGB is an integer, so answers give it rounded up (a 1.5 limit reads
// 2) beside the exact dataLimitGiB (docs/api.md). Tenths are compared as integers
// (usage × 10 against tenths × 2^30), so no float decides whether a peer is over.

/** Bytes in one GB of dataLimitGB (DESIGN.md: 1 GB = 1,073,741,824 bytes, 2^30), the GiB of dataLimitGiB. */
export const GB = 1_073_741_824;

/** 8,388,607 GB is the largest limit whose byte count stays a safe JavaScript integer. */
export const MAX_LIMIT_GB = 8_388_607;

/** A limit in whole tenths of a GiB (1.5 is 15). */
export const limitTenths = (dataLimitGB: number): number => Math.round(dataLimitGB * 10);

/** True when `usageBytes` has reached a limit of `dataLimitGB` (0: no limit). */
export function isOverLimit(usageBytes: number, dataLimitGB: number): boolean {
  return dataLimitGB > 0 && usageBytes * 10 >= limitTenths(dataLimitGB) * GB;
}

/** The same rule in SQL, over two column expressions (`u.usage_bytes`, `p.data_limit_gb`). */
export function overLimitSql(usageBytes: string, dataLimitGB: string): string {
  return `(${dataLimitGB} > 0 AND ${usageBytes} * 10 >= ROUND(${dataLimitGB} * 10) * ${GB})`;
}

/** The limit in bytes (a tenth of a GiB is not a whole number of bytes: rounded up). */
export const limitBytes = (dataLimitGB: number): number => Math.ceil((limitTenths(dataLimitGB) * GB) / 10);

/** The contract's integer dataLimitGB of a limit: whole limits as they are, tenths rounded up. */
export const wholeGB = (dataLimitGB: number): number => Math.ceil(limitTenths(dataLimitGB) / 10);

/** Whether a number is a limit the API takes in dataLimitGiB: 0 to the largest, at most one decimal. */
export const isTenthsLimit = (n: number): boolean => Number.isFinite(n) && n >= 0 && n <= MAX_LIMIT_GB && Math.abs(n * 10 - Math.round(n * 10)) < 1e-6;
