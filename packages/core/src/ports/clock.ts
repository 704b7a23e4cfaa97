/** The current instant; injected so tests can fix "today". */
export type Clock = () => Date;
