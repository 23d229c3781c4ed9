export function actionTables(actionYml: string): { inputs: string; outputs: string };
export function withActionTables(readme: string, actionYml: string): string;
