export function actionTables(actionYml: string): { inputs: string; outputs: string };
export const ACTION_PAGE: string;
export function withActionTables(markdown: string, actionYml: string): string;
