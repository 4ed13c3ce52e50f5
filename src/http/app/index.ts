import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../../context.js';
import type { Team } from '../../domain/team.js';
import { adminPages } from './admin.js';
import { resumeAppSession, type AppSession } from '../../scheduling/host-app/sign-in.js';
import { listTeams } from '../../scheduling/account/teams.js';
import { loadAssets } from '../pages/assets.js';
import { availabilityPages } from './availability.js';
import { meetingPages } from './meetings.js';
import { checklistRoutes } from './checklist.js';
import { connectionPages, oauthReturnPage } from './connections.js';
import { SESSION_COOKIE, parseCookies, safeReturnPath, serializeCookie } from './cookies.js';
import { registerFormParser, requireFormToken } from './forms.js';
import { type AppPageOptions, createFrames, seeOther } from './frame.js';
import { profilePage } from './profile.js';
import { signInPages, signOutRoute } from './sign-in.js';
import { teamPages } from './team.js';
import { timeOffPages } from './time-off.js';
import { topicPages } from './topics.js';
import { upcomingPages } from './upcoming.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The web app's signed-in member (set by the app's guard; null elsewhere). */
    appSession: AppSession | null;
    /** The teams that member administers (each has a page in the navigation). */
    appTeams: readonly Team[];
  }
}

/**
 * The host's web app under /app: sign-in by e-mailed link, then the member's upcoming
 * meetings, weekly hours and topics, as server-rendered pages with plain forms (each carrying
 * a CSRF token) and one small script. Every change is the same use case the API calls, with
 * the member as the caller, so the same rules, events and webhooks apply. No API key is
 * involved: the browser holds only an HttpOnly session cookie.
 *
 * Each page is a plugin of its own (its routes and its renderer), registered here: the
 * sign-in pages open to anyone, the rest behind the session guard and the form token check.
 */
export const appRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  const options: AppPageOptions = { ctx, frames: createFrames(ctx, loadAssets()) };
  const { secure } = options.frames;

  app.decorateRequest('appSession', null);
  app.decorateRequest('appTeams', null as unknown as readonly Team[]);
  registerFormParser(app);

  await app.register(signInPages, options);
  await app.register(oauthReturnPage, options);

  // Signed-in pages
  await app.register(async (member) => {
    member.addHook('preHandler', async (request, reply) => {
      const cookie = parseCookies(request.headers.cookie)[SESSION_COOKIE];
      const session = await resumeAppSession(ctx, cookie);
      if (session === null) {
        // A stale cookie goes; the browser is sent to sign in.
        if (cookie !== undefined) reply.header('set-cookie', serializeCookie(SESSION_COOKIE, '', { maxAge: 0, secure }));
        // A page opened from a link (the approval e-mail's meeting) is where sign-in lands afterwards.
        const back = request.method === 'GET' ? safeReturnPath(request.url) : null;
        return seeOther(reply, back && back !== '/app' ? `/app/login?next=${encodeURIComponent(back)}` : '/app/login');
      }
      request.appSession = session;
      request.appTeams = await listTeams(ctx, session.principal);
      if (session.renewedUntil !== null) {
        reply.header('set-cookie', serializeCookie(SESSION_COOKIE, cookie!, { maxAge: Math.floor((session.renewedUntil - ctx.now()) / 1000), secure }));
      }
      // Before the route sees the form, valid or not (its schema's problems are the route's to show).
      if (request.method === 'POST') requireFormToken(ctx.secretKey, `session:${session.uuid}`, request.body);
    });

    await member.register(signOutRoute, options);
    await member.register(upcomingPages, options);
    await member.register(meetingPages, options);
    await member.register(availabilityPages, options);
    await member.register(timeOffPages, options);
    await member.register(topicPages, options);
    await member.register(teamPages, options);
    await member.register(connectionPages, options);
    await member.register(profilePage, options);
    await member.register(adminPages, options);
    await member.register(checklistRoutes, options);
  });
};
