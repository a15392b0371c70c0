/**
 * The reconcile model's property tests (test/unit/reconcile) with ten times the runs the default
 * suite gives them: the same properties, registered here by importing their files.
 */
process.env.MCP_LIVE_PROPERTY_SCALE ??= '10';
await import('../unit/reconcile/incrementalDesired.test.js');
await import('../unit/reconcile/persistentRecord.test.js');
