/**
 * Imported first by the CLI entry: citty decides on colour when it is loaded and colours
 * its usage text even on pipes, so colour is switched off before that unless stdout is a
 * terminal. NO_COLOR set by the user is always honoured.
 */
if (process.stdout.isTTY !== true) process.env.NO_COLOR = "1";
export {};
