import { describe, expect, it } from 'vitest';
import { AUDIT_ACTIONS, changedFields, isAuditAction } from './audit.js';

describe('changedFields', () => {
  it.each([
    [{ name: 'Acme', timezone: undefined, gateways: [] }, ['gateways', 'name']],
    [{ admin: false, firstName: undefined }, ['admin']],
    [{ description: null }, ['description']],
    [{}, []],
  ])('%j → %j (names of the fields set, never values)', (patch, expected) => {
    expect(changedFields(patch)).toEqual(expected);
  });
});

describe('AUDIT_ACTIONS', () => {
  it("holds every action the contract lists, those of participants' data included", () => {
    for (const action of ['participant.exported', 'participant.erased', 'retention.applied', 'meeting.cancelled', 'meeting.moved', 'owner.transferred']) {
      expect(isAuditAction(action), action).toBe(true);
    }
    expect(isAuditAction('meeting.deleted')).toBe(false);
    expect(new Set(AUDIT_ACTIONS).size).toBe(AUDIT_ACTIONS.length);
  });
});
