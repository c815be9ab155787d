// Migrations of issue 36's second half (same-epoch promotions), after site.ts.
export const HA_LINE_MIGRATIONS: readonly string[] = [
  // ---- Each epoch names the promotion that began it ----
  // Two routers promoted from the same epoch while cut off from each other both take the
  // next number; the random `node` each promotion draws tells their lines apart, and the
  // higher (epoch, node) is the pair's (docs/ha.md). '' for the first epoch and older ones.
  `
  ALTER TABLE ha_epochs ADD COLUMN node TEXT NOT NULL DEFAULT '';
  `,
];
