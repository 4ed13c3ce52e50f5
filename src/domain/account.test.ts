import { describe, expect, it } from 'vitest';
import { type MemberChange, ownerChangeRefusal } from './account.js';

const rename: MemberChange = { rename: true, losesAdmin: false, removed: false };
const demote: MemberChange = { rename: false, losesAdmin: true, removed: false };
const removeAdmin: MemberChange = { rename: false, losesAdmin: true, removed: true };
const removeMember: MemberChange = { rename: false, losesAdmin: false, removed: true };

describe('ownerChangeRefusal', () => {
  it.each([
    // [case, actor, member, change, admin of another team, refused?]
    ['a co-admin renames the owner', 'admin', 'owner', rename, true, 'Only'],
    ['a co-admin demotes the owner, who is admin elsewhere too', 'admin', 'owner', demote, true, 'Only'],
    ['a co-admin removes the owner from a team', 'admin', 'owner', removeMember, true, 'Only'],
    ['the owner renames themselves', 'owner', 'owner', rename, false, null],
    ['the owner steps down where they are admin elsewhere too', 'owner', 'owner', demote, true, null],
    ['the owner steps down from the last team they administer', 'owner', 'owner', demote, false, 'stays an admin'],
    ['the owner leaves the last team they administer', 'owner', 'owner', removeAdmin, false, 'stays an admin'],
    ['the owner leaves a team they only belong to', 'owner', 'owner', removeMember, false, null],
    ['anyone changes a member who is not the owner', 'admin', 'member', removeAdmin, false, null],
  ] as const)('%s', (_case, actor, member, change, adminElsewhere, refused) => {
    const refusal = ownerChangeRefusal('owner', actor, member, change, adminElsewhere);
    if (refused === null) expect(refusal).toBeNull();
    else expect(refusal).toContain(refused);
  });

  it('protects nobody in an account without an owner yet', () => {
    expect(ownerChangeRefusal(null, 'admin', 'owner', removeAdmin, false)).toBeNull();
  });
});
