// The events stream as a resource group; the iterator itself lives in ../events.
import { type EventsSubscription, type SubscribeOptions, subscribeEvents } from '../events';
import type { Http } from '../http';

export const eventsResource = (http: Http) => ({
  /** `for await (const e of client.events.subscribe()) …` — resumes across drops, each id once. */
  subscribe: (options?: SubscribeOptions): EventsSubscription => subscribeEvents(http, options),
});
