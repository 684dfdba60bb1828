// Root hooks shared by every test file. Database set-up lives in ./database.ts.
export const mochaHooks = {};
