// The Discord adapter (discord.js v14): the gateway for DMs, mentions and interactions, the
// ChatPort over REST, slash commands registered at start. Interactions are acknowledged
// before any Presence call (Discord's 3-second rule): slash commands with a deferred
// ephemeral reply, owner presses with a deferred update; refusals are answered at once.
import {
  type APIActionRowComponent,
  type APIButtonComponent,
  type APIChannel,
  type APIMessage,
  ButtonStyle,
  type ChatInputCommandInteraction,
  Client,
  ComponentType,
  Events,
  GatewayIntentBits,
  type Interaction,
  type Message,
  MessageFlags,
  Partials,
  Routes,
  SlashCommandBuilder,
  type User,
} from 'discord.js';
import { DISCORD_API_ROOT, type DiscordShards } from '../config';
import { abortable } from '../surface/abortable';
import type { ChatButton, ChatPort, ChatUser } from '../surface/chat-port';
import { COMMANDS, GROUP_HINT } from '../surface/render';
import { splitMessage } from '../surface/split';
import { createSurface, type SurfaceOptions } from '../surface/surface';

export const DISCORD_MAX_LENGTH = 2000;

export type DiscordBotOptions = Omit<SurfaceOptions, 'port'> & {
  token: string;
  /** REST root without the version, e.g. https://discord.com/api. */
  apiRoot?: string;
  /** The gateway split across processes (DISCORD_SHARDS / DISCORD_SHARD_IDS); absent: one shard. */
  shards?: DiscordShards | null;
};

const rows = (buttons: readonly ChatButton[] | undefined): APIActionRowComponent<APIButtonComponent>[] =>
  buttons
    ? [
        {
          type: ComponentType.ActionRow,
          components: buttons.map(
            (b): APIButtonComponent =>
              'url' in b
                ? { type: ComponentType.Button, style: ButtonStyle.Link, label: b.label, url: b.url }
                : {
                    type: ComponentType.Button,
                    style: b.style === 'approve' ? ButtonStyle.Success : ButtonStyle.Danger,
                    label: b.label,
                    custom_id: b.data,
                  },
          ),
        },
      ]
    : [];
const userOf = (u: User): ChatUser => ({ surface: 'discord', id: u.id, name: u.globalName ?? u.username });

export const slashCommands = () =>
  COMMANDS.map((c) => {
    const b = new SlashCommandBuilder().setName(c.name).setDescription(c.description);
    if (c.name === 'link') b.addStringOption((opt) => opt.setName('code').setDescription('the one-time code').setRequired(true));
    return b.toJSON();
  });

export function createDiscordBot(o: DiscordBotOptions) {
  const client = new Client({
    // No privileged intent, so a new bot runs without Discord's approval: the bot reads only
    // DMs and messages that mention it, and Discord sends those with their content anyway.
    intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.DirectMessages],
    partials: [Partials.Channel],
    rest: { api: o.apiRoot ?? DISCORD_API_ROOT },
    // Sharded (DISCORD_SHARDS / DISCORD_SHARD_IDS): this process connects only its shards;
    // Discord routes each server's events, and DMs (shard 0), to the shard that owns them.
    ...(o.shards
      ? o.shards.count === 'auto'
        ? { shards: 'auto' as const }
        : { shardCount: o.shards.count, shards: o.shards.ids ?? [...Array(o.shards.count).keys()] }
      : {}),
  });
  let accepting = false;

  // Plain REST, so nothing depends on which channels discord.js happens to have cached.
  const port: ChatPort = {
    surface: 'discord',
    maxLength: DISCORD_MAX_LENGTH,
    async send(chatId, text, buttons) {
      const m = (await client.rest.post(Routes.channelMessages(chatId), {
        body: { content: text, components: rows(buttons), allowed_mentions: { parse: [] } },
      })) as APIMessage;
      return { chatId, messageId: m.id };
    },
    async edit(ref, text, buttons) {
      await client.rest.patch(Routes.channelMessage(ref.chatId, ref.messageId), {
        body: { content: text, components: rows(buttons), allowed_mentions: { parse: [] } },
      });
    },
    async privateChat(userId) {
      const channel = (await client.rest.post(Routes.userChannels(), { body: { recipient_id: userId } })) as APIChannel;
      return channel.id;
    },
  };
  const surface = createSurface({ ...o, port });

  function onMessage(msg: Message) {
    if (!accepting || msg.author.bot || msg.system) return;
    const isPrivate = !msg.inGuild();
    let text = msg.content;
    if (!isPrivate) {
      const me = client.user?.id;
      if (!me || !msg.mentions.users.has(me)) return;
      text = text.replace(new RegExp(`<@!?${me}>`, 'g'), '').trim();
      if (text === '') {
        surface.spawn(() => surface.say(msg.channelId, GROUP_HINT));
        return;
      }
    }
    if (text.trim() === '') return;
    surface.spawn(() =>
      surface.text(userOf(msg.author), msg.channelId, text, { isPrivate, source: { chatId: msg.channelId, messageId: msg.id } }),
    );
  }

  async function onSlash(i: ChatInputCommandInteraction) {
    await i.deferReply({ flags: MessageFlags.Ephemeral });
    const reply = await surface.command(userOf(i.user), i.channelId, i.commandName, i.options.getString('code') ?? '', {
      isPrivate: !i.inGuild(),
      discreet: true,
    });
    const [first = '', ...rest] = splitMessage(reply.text, DISCORD_MAX_LENGTH);
    await i.editReply({ content: first, allowedMentions: { parse: [] } });
    for (const part of rest) await i.followUp({ content: part, flags: MessageFlags.Ephemeral, allowedMentions: { parse: [] } });
    await reply.after?.();
  }

  function onInteraction(i: Interaction) {
    if (!accepting) return;
    if (i.isChatInputCommand()) surface.spawn(() => onSlash(i));
    else if (i.isButton()) {
      const pressed = surface.press(userOf(i.user), i.customId, { chatId: i.channelId, messageId: i.message.id });
      surface.spawn(async () => {
        const answer = await pressed;
        const run = answer.run;
        if (!run) return i.reply({ content: answer.toast, flags: MessageFlags.Ephemeral });
        await i.deferUpdate();
        await run();
      });
    }
  }

  client.on(Events.MessageCreate, onMessage);
  client.on(Events.InteractionCreate, onInteraction);
  client.on(Events.Error, (e) => o.log('error', 'Discord client error', { error: String(e) }));

  return {
    client,
    surface,
    port,
    /**
     * Logs in, waits for READY, registers the slash commands, starts the events feeds.
     * Rejects with the signal's reason as soon as `signal` aborts (stop() then ends the login).
     */
    async start(signal?: AbortSignal) {
      o.onSecret?.(o.token);
      const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
      await abortable(
        client.login(o.token).then(() => ready),
        signal,
      );
      try {
        await abortable(Promise.resolve(client.application?.commands.set(slashCommands())), signal);
      } catch (e) {
        signal?.throwIfAborted();
        o.log('warn', 'could not register the Discord slash commands', { error: String(e) });
      }
      accepting = true;
      surface.start();
      o.log('info', 'Discord bot connected', { user: client.user?.tag });
    },
    /** Stops taking updates, waits for work in flight, stops the feeds, closes the gateway. */
    async stop() {
      accepting = false;
      await surface.stop();
      await client.destroy();
    },
  };
}
