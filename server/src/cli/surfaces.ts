// `presence-server surfaces create|list|revoke`: the surface tokens bots hold (one per bot),
// made and revoked by the operator, never over HTTP.

import type { Command } from 'commander';
import { withOperatorCore } from './operator-store';

export function registerSurfaces(program: Command) {
  const surfacesCommand = program
    .command('surfaces')
    .description('manage surface tokens (one per bot: it redeems link codes and acts for the keys it linked)');

  surfacesCommand
    .command('create')
    .argument('<name>', 'surface name: lowercase letters, digits, "-" or "_" (e.g. telegram-main)')
    .description('make a surface token and print it (shown once): give it to the bot as PRESENCE_SURFACE_TOKEN')
    .action(async (name: string) => {
      await withOperatorCore(async (core, where) => {
        const { surface, token } = await (core.surfaces as NonNullable<typeof core.surfaces>).create(name);
        process.stdout.write(
          `surface ${surface.id} ${surface.name} (${where})\nsurface token ${token}\n(shown once; set it as PRESENCE_SURFACE_TOKEN)\n`,
        );
      });
    });

  surfacesCommand
    .command('list')
    .description('list surface tokens: id, name, last four characters, live links, state')
    .action(async () => {
      await withOperatorCore(async (core) => {
        const all = await (core.surfaces as NonNullable<typeof core.surfaces>).list();
        if (all.length === 0) process.stdout.write('no surface tokens\n');
        for (const s of all)
          process.stdout.write(
            `${s.id}  ${s.name.padEnd(20)}  …${s.last4}  ${String(s.links).padStart(6)} links  ${s.revoked_at ? `revoked ${s.revoked_at}` : `live since ${s.created_at}`}\n`,
          );
      });
    });

  surfacesCommand
    .command('revoke')
    .argument('<surface>', 'its id (srf_…) or the name of a live surface')
    .description(
      'revoke a surface token at once: its streams close and its requests are 401 (the keys it linked stay, unusable by any other token)',
    )
    .action(async (which: string) => {
      await withOperatorCore(async (core) => {
        const s = await (core.surfaces as NonNullable<typeof core.surfaces>).revoke(which);
        process.stdout.write(`revoked surface ${s.id} ${s.name}\n`);
      });
    });
}
